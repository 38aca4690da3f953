// The visit limit of a short link: a whole number of 1 or more, or empty for no limit.
import { NumberInput } from '@mantine/core';
import type { ReactNode } from 'react';

export function VisitLimitInput(props: {
  description: ReactNode;
  value: number | string;
  onChange: (value: number | string) => void;
  error?: string | undefined;
}) {
  return (
    <NumberInput
      label="Visit limit"
      placeholder="No limit"
      min={1}
      allowDecimal={false}
      allowNegative={false}
      description={props.description}
      value={props.value}
      onChange={props.onChange}
      error={props.error}
    />
  );
}
