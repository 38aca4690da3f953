// Live previews of the view settings: the card a chat app (Discord and the like) draws from the embed tags the
// server writes (embedTags in src/pages/view-page.ts), and the view page itself. Both follow the same rules as the
// server: no card when embeds are off or, with "media only", for other files; the site name falls back on the site's
// title; the colour only when it is a hex colour.
import { Avatar, Box, Group, Stack, Text, useComputedColorScheme } from '@mantine/core';
import { IconFileText, IconPhoto, IconPlayerPlayFilled } from '@tabler/icons-react';
import type { UserViewSettings } from '../../api/types';
import { embedDetails, fillPlaceholders, isEmbedColor, type SampleFile } from './placeholders';

const DISCORD = {
  dark: {
    message: '#313338',
    card: '#2b2d31',
    text: '#dbdee1',
    muted: '#b5bac1',
    link: '#00a8fc',
    bar: '#1e1f22',
    media: '#1e1f22',
  },
  light: {
    message: '#ffffff',
    card: '#f2f3f5',
    text: '#313338',
    muted: '#4e5058',
    link: '#006ce7',
    bar: '#e3e5e8',
    media: '#e3e5e8',
  },
};

function MediaPlaceholder({ file, background, color }: { file: SampleFile; background: string; color: string }) {
  return (
    <Box
      mt="sm"
      style={{
        background,
        color,
        borderRadius: 4,
        aspectRatio: '16 / 9',
        maxWidth: 400,
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
      }}
      aria-hidden
    >
      <Stack align="center" gap={4}>
        {file.kind === 'video' ? <IconPlayerPlayFilled size={40} /> : <IconPhoto size={40} />}
        <Text size="xs" inherit>
          {file.originalName}
        </Text>
      </Stack>
    </Box>
  );
}

export interface EmbedPreviewProps {
  view: UserViewSettings;
  file: SampleFile;
  siteTitle: string;
  username: string;
  avatar: string | null | undefined;
  origin: string;
}

export function EmbedPreview({ view, file, siteTitle, username, avatar, origin }: EmbedPreviewProps) {
  const scheme = useComputedColorScheme('light');
  const colors = DISCORD[scheme];
  const isMedia = file.kind !== 'text';
  const shown = Boolean(view.embed) && !(view.embedMediaOnly && !isMedia);
  const title = view.embedTitle ? fillPlaceholders(view.embedTitle, file) : '';
  const own = view.embedDescription ? fillPlaceholders(view.embedDescription, file) : '';
  const details = embedDetails(view, file);
  const description = own && details ? `${own}\n${details}` : own || (details ?? '');
  const siteName = view.embedSiteName ? fillPlaceholders(view.embedSiteName, file) : siteTitle;
  const color = view.embedColor && isEmbedColor(view.embedColor) ? view.embedColor : colors.bar;
  const link = `${origin}/u/${file.name}`;

  return (
    <Box
      data-testid="embed-preview"
      role="figure"
      aria-label="Preview of the embed in a chat app"
      p="md"
      style={{ background: colors.message, color: colors.text, borderRadius: 8, overflow: 'hidden' }}
    >
      <Group gap="sm" align="flex-start" wrap="nowrap">
        <Avatar src={avatar ?? null} radius="xl" size={40} alt="">
          {username.slice(0, 2).toUpperCase()}
        </Avatar>
        <Box style={{ minWidth: 0, flex: 1 }}>
          <Group gap={8} wrap="nowrap">
            <Text fw={600} size="sm" truncate>
              {username}
            </Text>
            <Text size="xs" style={{ color: colors.muted }}>
              Today at 12:00
            </Text>
          </Group>
          <Text size="sm" style={{ color: colors.link, wordBreak: 'break-all' }}>
            {link}
          </Text>
          {shown ? (
            <Box
              mt={6}
              data-testid="embed-card"
              style={{
                background: colors.card,
                borderLeft: `4px solid ${color}`,
                borderRadius: 4,
                padding: '8px 16px 16px 12px',
                maxWidth: 432,
              }}
            >
              <Text
                size="xs"
                mt={4}
                data-testid="embed-site-name"
                style={{ color: colors.muted, overflowWrap: 'anywhere' }}
              >
                {siteName}
              </Text>
              {title ? (
                <Text
                  fw={600}
                  size="md"
                  mt={6}
                  data-testid="embed-title"
                  style={{ color: colors.link, overflowWrap: 'anywhere' }}
                >
                  {title}
                </Text>
              ) : null}
              {description ? (
                <Text
                  size="sm"
                  mt={6}
                  data-testid="embed-description"
                  style={{ whiteSpace: 'pre-line', overflowWrap: 'anywhere' }}
                >
                  {description}
                </Text>
              ) : null}
              {isMedia ? <MediaPlaceholder file={file} background={colors.media} color={colors.muted} /> : null}
            </Box>
          ) : (
            <Text size="xs" mt={6} style={{ color: colors.muted }} data-testid="embed-none">
              {!view.embed
                ? 'Embeds are off: chat apps show only the link (or the file itself when they can).'
                : 'No card for this file: embeds are on for images, videos and audio only.'}
            </Text>
          )}
        </Box>
      </Group>
    </Box>
  );
}

/** The view page as a browser shows it (the page's own dark style, see layout() in view-page.ts). */
export function ViewPagePreview({ view, file }: { view: UserViewSettings; file: SampleFile }) {
  const align = view.align === 'left' || view.align === 'right' ? view.align : 'center';
  const content = view.content ? fillPlaceholders(view.content, file) : '';
  return (
    <Box
      data-testid="view-page-preview"
      role="figure"
      aria-label="Preview of the view page"
      p="md"
      // Switched off, it is drawn in grey rather than faded, so that its text keeps its contrast.
      style={{
        background: '#111',
        color: '#eee',
        borderRadius: 8,
        textAlign: align,
        filter: view.enabled ? undefined : 'grayscale(1)',
      }}
    >
      <Text fw={700} size="lg" style={{ overflowWrap: 'anywhere' }}>
        {file.originalName}
      </Text>
      {content ? (
        <Text size="sm" mt={4} data-testid="view-page-content" style={{ overflowWrap: 'anywhere' }}>
          {content}
        </Text>
      ) : null}
      {file.kind === 'text' ? (
        view.disableTextFiles ? (
          <Text size="sm" mt="xs">
            {file.name} ({file.size})
          </Text>
        ) : (
          <Box
            mt="xs"
            p="xs"
            style={{ background: '#1c1c1c', textAlign: 'left', fontFamily: 'monospace', fontSize: 12, borderRadius: 4 }}
          >
            <IconFileText size={14} style={{ verticalAlign: 'middle' }} /> Shopping list: milk, bread, coffee…
          </Box>
        )
      ) : (
        <Box
          style={{
            display: 'flex',
            justifyContent: align === 'left' ? 'flex-start' : align === 'right' ? 'flex-end' : 'center',
          }}
        >
          <Box w="100%" maw={320}>
            <MediaPlaceholder file={file} background="#1c1c1c" color="#aaa" />
          </Box>
        </Box>
      )}
      <Text size="xs" mt="xs" style={{ color: '#aaa' }} data-testid="view-page-meta">
        {file.size}
        {view.showMimetype ? ` · ${file.type}` : ''}
        {view.showFolder ? (
          <>
            {' · In '}
            <span data-testid="view-page-folder">{file.folder}</span>
          </>
        ) : null}{' '}
        · <span style={{ color: '#8ab4f8' }}>download</span>
      </Text>
      {view.showTags && file.tags.length > 0 ? (
        <Group gap={6} mt={6} justify={align === 'left' ? 'flex-start' : align === 'right' ? 'flex-end' : 'center'}>
          {file.tags.map((tag) => (
            <Text
              key={tag}
              span
              size="xs"
              data-testid="view-page-tag"
              style={{ background: '#1c1c1c', color: '#eee', borderRadius: 999, padding: '2px 8px' }}
            >
              {tag}
            </Text>
          ))}
        </Group>
      ) : null}
    </Box>
  );
}
