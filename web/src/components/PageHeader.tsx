import { Group, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** The title row of a page, with its actions on the right (they wrap under the title on a phone). */
export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <Group justify="space-between" align="flex-end" mb="md" gap="sm" wrap="wrap">
      <Stack gap={2}>
        <Title order={2}>{title}</Title>
        {description ? (
          <Text c="dimmed" size="sm">
            {description}
          </Text>
        ) : null}
      </Stack>
      {actions ? <Group gap="xs">{actions}</Group> : null}
    </Group>
  );
}
