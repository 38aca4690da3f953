// An empty list: an icon, what is (not) there, a hint of what to do, and optionally a button that does it.
import { Card, Center, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import type { ReactNode } from 'react';

export function EmptyCard({
  icon,
  title,
  children,
  action,
  testId,
}: {
  icon: ReactNode;
  title: string;
  children: ReactNode;
  action?: ReactNode;
  testId?: string;
}) {
  return (
    <Card withBorder padding="xl" data-testid={testId}>
      <Center>
        <Stack align="center" gap={6} maw={440}>
          <ThemeIcon size={44} radius="xl" variant="light">
            {icon}
          </ThemeIcon>
          <Title order={3} size="h5" fw={600} ta="center">
            {title}
          </Title>
          <Text size="sm" c="dimmed" ta="center">
            {children}
          </Text>
          {action ? <div style={{ marginTop: 4 }}>{action}</div> : null}
        </Stack>
      </Center>
    </Card>
  );
}
