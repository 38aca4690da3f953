// The "Shorten a link" card: a destination and, behind "More options", a custom name, a visit limit, a password and
// whether the link works yet. The new short link is shown and copied to the clipboard at once. The form shows the
// outcome of the last try only: a new error takes the place of an earlier short link, and a new link that of an error.
import {
  Alert,
  Anchor,
  Button,
  Card,
  Collapse,
  Flex,
  Group,
  PasswordInput,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import { IconChevronDown, IconChevronUp, IconLink } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { CopyButton } from '../../components/CopyButton';
import { FormError } from '../../components/FormError';
import { copyText } from '../../lib/clipboard';
import { checkUrlFields, shortenUrl, type ShortUrl } from './url-api';
import { VisitLimitInput } from './VisitLimitInput';
import { useUrlForm } from './use-url-form';
import { bound } from '../../lib/bound';

export function ShortenForm({ onCreated }: { onCreated: (url: ShortUrl) => void }) {
  const [destination, setDestination] = useState('');
  const [vanity, setVanity] = useState('');
  const [maxViews, setMaxViews] = useState<number | string>('');
  const [password, setPassword] = useState('');
  const [enabled, setEnabled] = useState(true);
  const [showOptions, setShowOptions] = useState(false);
  const { busy, failure, setFailure, errors, setErrors, run } = useUrlForm((field) => {
    if (field !== 'destination') setShowOptions(true);
  });
  const [created, setCreated] = useState<{ url: ShortUrl; copied: boolean } | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = checkUrlFields({ destination, vanity });
    setErrors(checked.errors ?? {});
    setFailure(null);
    // The link of an earlier try is not left next to this try's error.
    setCreated(null);
    if (checked.errors) {
      if (checked.errors.vanity) setShowOptions(true);
      return;
    }
    await run(async () => {
      const url = await shortenUrl({
        destination: checked.destination,
        vanity: checked.vanity ?? undefined,
        maxViews: typeof maxViews === 'number' ? maxViews : undefined,
        password: password || undefined,
        enabled,
      });
      const copied = await copyText(url.url);
      setCreated({ url, copied });
      setDestination('');
      setVanity('');
      setMaxViews('');
      setPassword('');
      setEnabled(true);
      onCreated(url);
    });
  };

  return (
    <Card withBorder padding="md">
      <form onSubmit={(event) => void submit(event)} noValidate aria-label="Shorten a link">
        <Stack gap="sm">
          <Text fw={600}>Shorten a link</Text>
          <Flex direction={{ base: 'column', xs: 'row' }} align={{ base: 'stretch', xs: 'flex-start' }} gap="xs">
            <TextInput
              style={{ flex: 1, minWidth: 0 }}
              label="Destination"
              placeholder="https://example.com/a/long/address"
              required
              inputMode="url"
              autoComplete="off"
              {...bound(destination, setDestination)}
              error={errors.destination}
            />
            <Button type="submit" mt={{ base: 0, xs: 25 }} loading={busy} leftSection={<IconLink size={16} />}>
              Shorten
            </Button>
          </Flex>
          <div>
            <Button
              variant="subtle"
              size="compact-sm"
              px={4}
              onClick={() => setShowOptions((v) => !v)}
              aria-expanded={showOptions}
              rightSection={showOptions ? <IconChevronUp size={14} /> : <IconChevronDown size={14} />}
            >
              More options
            </Button>
          </div>
          <Collapse in={showOptions}>
            <Stack gap="sm">
              <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
                <TextInput
                  label="Custom name"
                  description="Instead of a random code"
                  placeholder="my-link"
                  autoComplete="off"
                  {...bound(vanity, setVanity)}
                  error={errors.vanity}
                />
                <VisitLimitInput
                  description="The link stops working after this many"
                  value={maxViews}
                  onChange={setMaxViews}
                  error={errors.maxViews}
                />
                <PasswordInput
                  label="Password"
                  description="Visitors must enter it first"
                  placeholder="None"
                  autoComplete="new-password"
                  {...bound(password, setPassword)}
                />
              </SimpleGrid>
              <Switch
                label="Enabled"
                description="A disabled link answers “not found” until you enable it"
                checked={enabled}
                onChange={(e) => setEnabled(e.currentTarget.checked)}
              />
            </Stack>
          </Collapse>
          <FormError message={failure} title="The link was not shortened" />
          {created ? <CreatedLink url={created.url} copied={created.copied} /> : null}
        </Stack>
      </form>
    </Card>
  );
}

function CreatedLink({ url, copied }: { url: ShortUrl; copied: boolean }) {
  return (
    <Alert color="teal" title="Your short link" data-testid="short-link-result">
      <Group gap="xs" wrap="nowrap" justify="space-between">
        <Anchor
          href={url.url}
          target="_blank"
          rel="noreferrer"
          fw={600}
          style={{ minWidth: 0, overflowWrap: 'anywhere' }}
        >
          {url.url}
        </Anchor>
        <CopyButton value={url.url} what="short link" />
      </Group>
      <Text size="xs" c="dimmed" mt={4} style={{ overflowWrap: 'anywhere' }}>
        {copied ? 'Copied to the clipboard. ' : ''}
        {url.enabled ? '' : 'It is disabled: it will work once you enable it. '}
        Leads to {url.destination}
      </Text>
    </Alert>
  );
}
