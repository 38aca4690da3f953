import { Center, Group, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { ThemeToggle } from '../../layout/ThemeToggle';
import { useSession } from '../../lib/session';

/** The centred card the setup, sign-in and register pages share. */
export function AuthFrame({ title, subtitle, children }: { title: string; subtitle?: ReactNode; children: ReactNode }) {
  const { server } = useSession();
  return (
    <Center mih="100dvh" p="md">
      <Stack w="100%" maw={420} gap="md">
        <Group justify="space-between">
          <Text fw={700} size="lg">
            {server?.siteTitle ?? 'Chute'}
          </Text>
          <ThemeToggle />
        </Group>
        <Paper withBorder shadow="sm" p="lg" radius="md">
          <Title order={2} mb={4}>
            {title}
          </Title>
          {subtitle ? (
            <Text c="dimmed" size="sm" mb="md">
              {subtitle}
            </Text>
          ) : null}
          {children}
        </Paper>
      </Stack>
    </Center>
  );
}
