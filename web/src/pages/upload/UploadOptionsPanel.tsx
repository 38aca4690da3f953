// The upload options, folded into one line that says what is chosen; opened, a compact grid of fields.
import {
  Badge,
  Button,
  Collapse,
  Group,
  NumberInput,
  Paper,
  PasswordInput,
  Select,
  SimpleGrid,
  Switch,
  Text,
  TextInput,
  UnstyledButton,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconAdjustmentsHorizontal, IconChevronDown } from '@tabler/icons-react';
import { useId } from 'react';
import { ExtensionlessLinksSwitch } from '../../components/ExtensionlessLinksSwitch';
import { localInputValue } from '../../lib/expiry';
import {
  DEFAULT_OPTIONS,
  EXPIRY_CHOICES,
  FORMAT_CHOICES,
  keepsOriginalName,
  optionsProblem,
  optionsSummary,
  type UploadOptions,
} from './upload-options';

export interface FolderChoice {
  value: string;
  label: string;
}

interface Props {
  options: UploadOptions;
  onChange: (options: UploadOptions) => void;
  folders: FolderChoice[];
  foldersLoading: boolean;
  /** The server's filesKeepOriginalName: what "Keep original file name" is until someone changes it. */
  serverKeepsOriginalName: boolean;
  /** The server's filesExtensionlessUrls: what the links are when the upload does not choose. */
  serverExtensionless: boolean;
}

export function UploadOptionsPanel({
  options,
  onChange,
  folders,
  foldersLoading,
  serverKeepsOriginalName,
  serverExtensionless,
}: Props) {
  const [opened, { toggle }] = useDisclosure(false);
  const panelId = useId();
  const set = <K extends keyof UploadOptions>(key: K, value: UploadOptions[K]) =>
    onChange({ ...options, [key]: value });
  const folderName = folders.find((f) => f.value === options.folderId)?.label ?? null;
  const summary = optionsSummary(options, folderName, serverKeepsOriginalName);
  const problem = optionsProblem(options);
  const changed = summary.length > 0;

  return (
    <Paper withBorder radius="md">
      <UnstyledButton
        onClick={toggle}
        aria-expanded={opened}
        aria-controls={panelId}
        w="100%"
        px="md"
        py="sm"
        style={{ borderRadius: 'var(--mantine-radius-md)' }}
      >
        <Group justify="space-between" wrap="nowrap" gap="sm">
          <Group gap="sm" wrap="nowrap" miw={0}>
            <IconAdjustmentsHorizontal size={20} style={{ flexShrink: 0 }} />
            <div style={{ minWidth: 0 }}>
              <Text fw={600} size="sm">
                Upload options
              </Text>
              <Text size="xs" c={problem ? 'red' : 'dimmed'} lineClamp={2}>
                {problem ??
                  (changed ? summary.join(' · ') : 'Server defaults: expiry, name format, no password, no folder')}
              </Text>
            </div>
          </Group>
          <Group gap="xs" wrap="nowrap">
            {changed ? (
              <Badge variant="light" size="sm" visibleFrom="xs">
                {summary.length} set
              </Badge>
            ) : null}
            <IconChevronDown
              size={18}
              style={{
                transform: opened ? 'rotate(180deg)' : undefined,
                transition: 'transform 150ms ease',
                flexShrink: 0,
              }}
            />
          </Group>
        </Group>
      </UnstyledButton>
      <Collapse in={opened} id={panelId}>
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm" px="md" pb="md" pt={4}>
          <Select
            label="Expires"
            data={EXPIRY_CHOICES.map((c) => ({ ...c }))}
            value={options.expiry}
            allowDeselect={false}
            onChange={(value) => {
              const expiry = (value ?? 'default') as UploadOptions['expiry'];
              const expiresOn =
                expiry === 'custom' && !options.expiresOn
                  ? localInputValue(new Date(Date.now() + 7 * 86_400_000))
                  : options.expiresOn;
              onChange({ ...options, expiry, expiresOn });
            }}
          />
          {options.expiry === 'custom' ? (
            <TextInput
              label="Expiry date"
              type="datetime-local"
              value={options.expiresOn}
              min={localInputValue(new Date())}
              onChange={(event) => set('expiresOn', event.currentTarget.value)}
              error={problem && options.expiry === 'custom' && problem.includes('date') ? problem : undefined}
            />
          ) : null}
          <Select
            label="Name format"
            description={options.format === 'name' ? 'The link uses the file name as it is' : undefined}
            data={FORMAT_CHOICES.map((c) => ({ ...c }))}
            value={options.format}
            allowDeselect={false}
            onChange={(value) => set('format', (value ?? 'default') as UploadOptions['format'])}
          />
          <Select
            label="Folder"
            placeholder={foldersLoading ? 'Loading folders…' : folders.length === 0 ? 'No folders yet' : 'No folder'}
            data={folders}
            value={options.folderId}
            onChange={(value) => set('folderId', value)}
            clearable
            searchable
            nothingFoundMessage="No folder by that name"
            disabled={!foldersLoading && folders.length === 0 && !options.folderId}
          />
          <PasswordInput
            label="Password"
            placeholder="No password"
            description="Asked before the file is shown"
            value={options.password}
            onChange={(event) => set('password', event.currentTarget.value)}
            autoComplete="new-password"
          />
          <NumberInput
            label="Max views"
            placeholder="Unlimited"
            description="Deleted after this many views"
            min={1}
            allowDecimal={false}
            allowNegative={false}
            value={options.maxViews}
            onChange={(value) => set('maxViews', value === '' ? '' : Number(value))}
            error={problem?.startsWith('Max views') ? problem : undefined}
          />
          <Switch
            label="Keep original file name"
            description={`Shown under the link name and given to downloads (server default: ${serverKeepsOriginalName ? 'on' : 'off'})`}
            checked={keepsOriginalName(options, serverKeepsOriginalName)}
            // The same as the server's default is no choice: the page goes on following the server.
            onChange={(event) => {
              const keep = event.currentTarget.checked;
              set('keepOriginalName', keep === serverKeepsOriginalName ? null : keep);
            }}
            mt={{ base: 0, sm: 'lg' }}
          />
          <ExtensionlessLinksSwitch
            description="/u/abc instead of /u/abc.png; the file keeps its name"
            value={options.extensionless}
            serverDefault={serverExtensionless}
            onChange={(value) => set('extensionless', value)}
            mt={{ base: 0, sm: 'lg' }}
          />
        </SimpleGrid>
        {changed ? (
          <Group justify="flex-end" px="md" pb="md" mt={-4}>
            <Button variant="subtle" size="xs" onClick={() => onChange({ ...DEFAULT_OPTIONS })}>
              Reset to defaults
            </Button>
          </Group>
        ) : null}
      </Collapse>
    </Paper>
  );
}
