// A search box: its label is its placeholder (and what a screen reader says), with the search icon.
import { TextInput, type TextInputProps } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { bound } from '../lib/bound';

export function SearchInput({
  label,
  value,
  onValue,
  ...props
}: Omit<TextInputProps, 'value' | 'onChange' | 'label'> & {
  label: string;
  value: string;
  onValue: (value: string) => void;
}) {
  return (
    <TextInput
      aria-label={label}
      placeholder={label}
      leftSection={<IconSearch size={16} />}
      type="search"
      {...bound(value, onValue)}
      {...props}
    />
  );
}
