// Ready-made uploader configurations, made here in the browser from the user's API token (or a new upload-only scoped
// token, made on request) and the options chosen in a small form: ShareX (.sxcu) for files and for short URLs, and a
// Flameshot/curl script (uploader-configs.ts).
import {
  Alert,
  Box,
  Button,
  Card,
  Code,
  Collapse,
  Group,
  PasswordInput,
  SegmentedControl,
  ScrollArea,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconBrandWindows, IconDownload, IconKey, IconLink, IconTerminal2 } from '@tabler/icons-react';
import { useMemo, useState, type ReactNode } from 'react';
import { ExtensionlessLinksSwitch } from '../../components/ExtensionlessLinksSwitch';
import { notifyError } from '../../lib/notify';
import { createApiToken, type CreatedApiToken } from './api-tokens-api';
import { settingsErrorObject } from './messages';
import { listFolders } from '../folders/folder-api';
import { folderOptions } from '../../lib/folder-paths';
import { useSession, useUser } from '../../lib/session';
import { useApi } from '../../lib/use-api';
import {
  defaultFileOptions,
  DEFAULT_URL_OPTIONS,
  downloadText,
  EXPIRY_CHOICES,
  fileSlug,
  flameshotScript,
  maxViewsProblem,
  NAME_FORMAT_CHOICES,
  shareXFileUploader,
  shareXUrlShortener,
  type FileUploadOptions,
  type UrlShortenOptions,
} from './uploader-configs';

interface DownloadRowProps {
  icon: ReactNode;
  title: string;
  description: ReactNode;
  fileName: string;
  contents: string;
  token: string;
  type: string;
  disabled: boolean;
}

function DownloadRow({ icon, title, description, fileName, contents, token, type, disabled }: DownloadRowProps) {
  const [open, setOpen] = useState(false);
  // On screen the token is left out (someone may be looking); the downloaded file has it.
  const shown = token ? contents.split(token).join('<your API token>') : contents;
  return (
    <Box py="sm" style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}>
      <Group justify="space-between" align="flex-start" gap="sm">
        <Group gap="sm" align="flex-start" wrap="nowrap" style={{ flex: '1 1 260px', minWidth: 0 }}>
          <Box mt={2}>{icon}</Box>
          <div style={{ minWidth: 0 }}>
            <Text fw={500}>{title}</Text>
            <Text size="sm" c="dimmed">
              {description}
            </Text>
          </div>
        </Group>
        <Group gap="xs">
          <Button
            variant="default"
            size="sm"
            onClick={() => setOpen((o) => !o)}
            aria-expanded={open}
            aria-label={`${open ? 'Hide' : 'Show'} ${fileName}`}
          >
            {open ? 'Hide' : 'Show'}
          </Button>
          <Button
            size="sm"
            leftSection={<IconDownload size={16} />}
            disabled={disabled}
            onClick={() => downloadText(fileName, contents, type)}
          >
            Download {fileName}
          </Button>
        </Group>
      </Group>
      <Collapse in={open}>
        <ScrollArea.Autosize mah={320} mt="sm" type="auto">
          <Code block style={{ fontSize: 12 }}>
            {shown}
          </Code>
        </ScrollArea.Autosize>
      </Collapse>
    </Box>
  );
}

export function UploadersSection() {
  const user = useUser();
  const { server, token } = useSession();
  const folders = useApi((signal) => listFolders('all', signal), []);
  // The session's server info is there before the dashboard shows (lib/session.tsx); true is the server's own default.
  const [files, setFiles] = useState<FileUploadOptions>(() =>
    defaultFileOptions(server?.filesKeepOriginalName ?? true),
  );
  const [urls, setUrls] = useState<UrlShortenOptions>(DEFAULT_URL_OPTIONS);
  const setFile = <K extends keyof FileUploadOptions>(key: K, value: FileUploadOptions[K]) =>
    setFiles((o) => ({ ...o, [key]: value }));
  const setUrl = <K extends keyof UrlShortenOptions>(key: K, value: UrlShortenOptions[K]) =>
    setUrls((o) => ({ ...o, [key]: value }));

  const folderChoices = useMemo(() => folderOptions(folders.data ?? []), [folders.data]);
  const fileViewsError = maxViewsProblem(files.maxViews);
  const urlViewsError = maxViewsProblem(urls.maxViews);
  const origin = window.location.origin;
  const serverExtensionless = server?.filesExtensionlessUrls ?? false;
  const target = { origin, siteTitle: server?.siteTitle ?? 'Chute', username: user.username, token: token ?? '' };
  const slug = fileSlug(origin);
  // Which token the file uploader and the script carry: the account's API token, or an upload-only scoped token made
  // here (kept only in this page: leave it and the secret is gone; revoke it under API tokens).
  const [which, setWhich] = useState<'account' | 'upload-only'>('account');
  const [uploadToken, setUploadToken] = useState<CreatedApiToken | null>(null);
  const [making, setMaking] = useState(false);
  const uploadOnly = which === 'upload-only';
  const fileTarget = { ...target, token: uploadOnly ? (uploadToken?.token ?? '') : target.token };
  const noToken = !token;
  const noFileToken = !fileTarget.token;

  const makeUploadToken = async () => {
    setMaking(true);
    try {
      const day = new Date().toISOString().slice(0, 10);
      setUploadToken(await createApiToken({ name: `Uploaders (${day})`, scopes: ['upload'] }));
    } catch (err) {
      notifyError(settingsErrorObject(err), 'The upload-only token was not made');
    } finally {
      setMaking(false);
    }
  };

  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <Card withBorder padding="lg" radius="md">
          <Title order={3} size="h4">
            File uploads
          </Title>
          <Text size="sm" c="dimmed" mb="sm">
            Used by the ShareX file uploader and the Flameshot/curl script.
          </Text>
          <Stack gap="sm">
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              <Select
                label="Name format"
                data={[...NAME_FORMAT_CHOICES]}
                value={files.format}
                onChange={(v) => setFile('format', v ?? '')}
                allowDeselect={false}
              />
              <Select
                label="Expires"
                data={[...EXPIRY_CHOICES]}
                value={files.expiry}
                onChange={(v) => setFile('expiry', v ?? '')}
                allowDeselect={false}
              />
              <TextInput
                label="Delete after this many views"
                placeholder="No limit"
                inputMode="numeric"
                value={files.maxViews}
                error={fileViewsError}
                onChange={(e) => setFile('maxViews', e.currentTarget.value)}
              />
              <Select
                label="Folder"
                placeholder={
                  folders.loading
                    ? 'Loading folders…'
                    : folderChoices.length === 0
                      ? 'You have no folders'
                      : 'No folder'
                }
                data={folderChoices}
                value={files.folderId || null}
                onChange={(v) => setFile('folderId', v ?? '')}
                clearable
                searchable
                disabled={folderChoices.length === 0}
                error={folders.error ? 'Your folders could not be loaded.' : null}
              />
            </SimpleGrid>
            <PasswordInput
              label="Password"
              description="Optional: every upload is protected with this password."
              autoComplete="new-password"
              value={files.password}
              onChange={(e) => setFile('password', e.currentTarget.value)}
            />
            <Switch
              label="Keep the original file name"
              description={`Each upload keeps the name the file had on your computer: shown under its link name and given to downloads (server default: ${server?.filesKeepOriginalName === false ? 'off' : 'on'}).`}
              checked={files.keepOriginalName}
              onChange={(e) => setFile('keepOriginalName', e.currentTarget.checked)}
            />
            <ExtensionlessLinksSwitch
              description="Links such as /u/abc instead of /u/abc.png; the file keeps its name."
              value={files.extensionless}
              serverDefault={serverExtensionless}
              onChange={(value) => setFile('extensionless', value)}
            />
          </Stack>
        </Card>

        <Card withBorder padding="lg" radius="md">
          <Title order={3} size="h4">
            Short URLs
          </Title>
          <Text size="sm" c="dimmed" mb="sm">
            Used by the ShareX URL shortener.
          </Text>
          <Stack gap="sm">
            <TextInput
              label="Stop working after this many visits"
              placeholder="No limit"
              inputMode="numeric"
              value={urls.maxViews}
              error={urlViewsError}
              onChange={(e) => setUrl('maxViews', e.currentTarget.value)}
            />
            <PasswordInput
              label="Link password"
              description="Optional: visitors must enter it before they are sent on."
              autoComplete="new-password"
              value={urls.password}
              onChange={(e) => setUrl('password', e.currentTarget.value)}
            />
          </Stack>
        </Card>
      </SimpleGrid>

      <Card withBorder padding="lg" radius="md">
        <Title order={3} size="h4">
          Downloads
        </Title>
        <SegmentedControl
          mt="sm"
          value={which}
          onChange={(v) => setWhich(v as 'account' | 'upload-only')}
          data={[
            { value: 'account', label: 'Your API token' },
            { value: 'upload-only', label: 'A new upload-only token' },
          ]}
          aria-label="Token in the files"
        />
        {uploadOnly ? (
          uploadToken ? (
            <Text size="sm" mt="xs" data-testid="upload-token-made">
              The files below carry the upload-only token “{uploadToken.name}”: it can upload, and cannot list, read or
              delete anything. It is not shown again once you leave this page; revoke it under API tokens.
            </Text>
          ) : (
            <Group mt="xs" gap="sm">
              <Text size="sm" c="dimmed" style={{ flex: '1 1 240px' }}>
                A token that can only upload, for a machine you do not fully trust. You can revoke it on its own.
              </Text>
              <Button size="sm" loading={making} onClick={() => void makeUploadToken()}>
                Make an upload-only token
              </Button>
            </Group>
          )
        ) : null}
        <Alert color="orange" icon={<IconKey size={18} />} my="sm" p="sm">
          {uploadOnly
            ? 'These files carry the upload-only token: whoever has them can upload as you. Keep them private.'
            : 'These files carry your API token: whoever has them can upload as you. Keep them private. After you regenerate the token, download them again.'}
        </Alert>
        <DownloadRow
          icon={<IconBrandWindows size={22} aria-hidden />}
          title="ShareX: file uploader"
          description="Open the file with ShareX (or Destinations → Custom uploader settings → Import) and pick it as the image, text and file uploader."
          fileName={`${slug}-files.sxcu`}
          contents={shareXFileUploader(fileTarget, files)}
          token={fileTarget.token}
          type="application/json"
          disabled={noFileToken || fileViewsError !== null}
        />
        <DownloadRow
          icon={<IconLink size={22} aria-hidden />}
          title="ShareX: URL shortener"
          description={
            uploadOnly
              ? 'Shortening needs the urls scope, which the upload-only token has not: choose your API token for it.'
              : 'Import it the same way and pick it as the URL shortener.'
          }
          fileName={`${slug}-urls.sxcu`}
          contents={shareXUrlShortener(target, urls)}
          token={target.token}
          type="application/json"
          disabled={noToken || uploadOnly || urlViewsError !== null}
        />
        <DownloadRow
          icon={<IconTerminal2 size={22} aria-hidden />}
          title="Flameshot / curl script (Linux, macOS)"
          description={
            <>
              <Code>chmod +x chute-upload.sh</Code>, then bind <Code>chute-upload.sh</Code> to a key for screenshots, or
              run <Code>chute-upload.sh FILE…</Code>. The links are copied with wl-copy or xclip when installed.
            </>
          }
          fileName="chute-upload.sh"
          contents={flameshotScript(fileTarget, files)}
          token={fileTarget.token}
          type="text/x-shellscript"
          disabled={noFileToken || fileViewsError !== null}
        />
      </Card>
    </Stack>
  );
}
