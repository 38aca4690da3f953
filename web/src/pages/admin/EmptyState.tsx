// What a list shows when it has nothing: an icon, what is (not) there, and what to do next.
import { Card, Center, Stack, Text } from '@mantine/core';
import type { Icon } from '@tabler/icons-react';

export function EmptyState({ icon: StateIcon, title, hint }: { icon: Icon; title: string; hint: string }) {
  return (
    <Card withBorder py="xl">
      <Center>
        <Stack align="center" gap={6}>
          <StateIcon size={32} stroke={1.5} aria-hidden />
          <Text fw={600}>{title}</Text>
          <Text size="sm" c="dimmed" ta="center">
            {hint}
          </Text>
        </Stack>
      </Center>
    </Card>
  );
}
