// One server setting: its label and meaning on the left, the input that fits its value on the right (stacked on a
// phone). A key set by an environment variable is shown disabled, with a lock and the variable's name.
import {
  Badge,
  Code,
  Grid,
  Group,
  NumberInput,
  Select,
  Switch,
  TagsInput,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import { formatBytes } from '../../lib/format';
import { parseSize } from '../../lib/sizes';
import { CHOICES, helpOf, labelOf, type Draft, type SettingKind } from './settings-fields';

export interface SettingFieldProps {
  settingKey: string;
  kind: SettingKind;
  /** The server's technical description of the key, shown under "Details". */
  description: string;
  env: string;
  /** The default value in words ("on", "1 GiB", "not set"). */
  defaultLabel: string;
  locked: boolean;
  changed: boolean;
  value: Draft;
  error: string | undefined;
  onChange: (value: Draft) => void;
}

function Input({
  settingKey,
  kind,
  locked,
  value,
  error,
  onChange,
  describedBy,
}: SettingFieldProps & { describedBy: string }) {
  const common = { id: `setting-${settingKey}`, disabled: locked, error, 'aria-describedby': describedBy };
  switch (kind) {
    case 'switch':
      return (
        <Group gap="xs" wrap="nowrap">
          {locked ? (
            <Text size="sm" c="dimmed">
              {value === true ? 'On' : 'Off'}
            </Text>
          ) : null}
          <Switch
            {...common}
            checked={value === true}
            onChange={(e) => onChange(e.currentTarget.checked)}
            size="md"
            onLabel="ON"
            offLabel="OFF"
          />
        </Group>
      );
    case 'number':
      return (
        <NumberInput
          {...common}
          value={value as number | ''}
          onChange={(v) => onChange(typeof v === 'number' ? v : v === '' ? '' : Number(v))}
          allowDecimal={false}
        />
      );
    case 'size': {
      const bytes = parseSize(String(value));
      return (
        <TextInput
          {...common}
          value={String(value)}
          onChange={(e) => onChange(e.currentTarget.value)}
          description={
            bytes !== null && !error ? `${formatBytes(bytes)} (${bytes.toLocaleString()} bytes)` : 'e.g. 100mb, 2gb'
          }
          inputWrapperOrder={['input', 'description', 'error']}
        />
      );
    }
    case 'list':
      return (
        <TagsInput
          {...common}
          value={value as string[]}
          onChange={onChange}
          placeholder={locked ? undefined : 'Type and press Enter'}
          clearable={!locked}
          splitChars={[',', ' ']}
        />
      );
    case 'choice':
      return (
        <Select
          {...common}
          data={CHOICES[settingKey] ?? []}
          value={String(value)}
          onChange={(v) => v && onChange(v)}
          allowDeselect={false}
        />
      );
    case 'optional-text':
      return (
        <TextInput
          {...common}
          value={String(value)}
          onChange={(e) => onChange(e.currentTarget.value)}
          placeholder="Not set"
        />
      );
    default:
      return <TextInput {...common} value={String(value)} onChange={(e) => onChange(e.currentTarget.value)} />;
  }
}

export function SettingField(props: SettingFieldProps) {
  const { settingKey, description, env, defaultLabel, locked, changed, kind } = props;
  const descriptionId = `setting-${settingKey}-help`;
  return (
    <Grid
      gutter={{ base: 6, sm: 'lg' }}
      align={kind === 'switch' ? 'center' : 'flex-start'}
      data-testid={`setting-${settingKey}`}
    >
      <Grid.Col span={kind === 'switch' ? { base: 9, sm: 7 } : { base: 12, sm: 7 }}>
        <Group gap={6} wrap="wrap">
          <Text component="label" htmlFor={`setting-${settingKey}`} fw={600} size="sm">
            {labelOf(settingKey)}
          </Text>
          {locked ? (
            <Tooltip
              label={`Set by the environment variable ${env}; change it there and restart Chute.`}
              multiline
              w={260}
            >
              <Badge
                size="sm"
                variant="light"
                color="orange"
                leftSection={<IconLock size={12} aria-hidden />}
                tabIndex={0}
                aria-label={`Locked by the environment variable ${env}`}
              >
                {env}
              </Badge>
            </Tooltip>
          ) : null}
          {changed ? (
            <Badge size="sm" variant="dot" color="yellow">
              Unsaved
            </Badge>
          ) : null}
        </Group>
        <Text size="xs" c="dimmed" id={descriptionId} mt={2}>
          {helpOf(settingKey, description)}
          {defaultLabel ? ` Default: ${defaultLabel}.` : ''}
          {locked ? ` Set by the environment variable ${env}.` : ''}
        </Text>
        <Text component="details" size="xs" c="dimmed" mt={2} data-testid={`setting-${settingKey}-details`}>
          <Text component="summary" size="xs" style={{ cursor: 'pointer' }}>
            Details
          </Text>
          <Code>{settingKey}</Code> in the API, <Code>{env}</Code> in the environment.{' '}
          {/[.!?]$/.test(description) ? description : `${description}.`}
        </Text>
      </Grid.Col>
      <Grid.Col
        span={kind === 'switch' ? { base: 3, sm: 5 } : { base: 12, sm: 5 }}
        style={kind === 'switch' ? { display: 'flex', justifyContent: 'flex-end' } : undefined}
      >
        <Input {...props} describedBy={descriptionId} />
      </Grid.Col>
    </Grid>
  );
}
