// A user's quota in a form: no file limit, a limit in bytes or in files, and optionally a limit on short URLs.
import { NumberInput, SegmentedControl, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import type { Quota } from '../../api/types';
import { formatBytes } from '../../lib/format';
import { parseSize, sizeText } from '../../lib/sizes';
import type { QuotaInput } from './admin-api';

export type QuotaKind = NonNullable<QuotaInput['filesQuota']>;

export interface QuotaForm {
  kind: QuotaKind;
  maxBytes: string;
  maxFiles: number | '';
  maxUrls: number | '';
}

export const NO_QUOTA: QuotaForm = { kind: 'NONE', maxBytes: '', maxFiles: '', maxUrls: '' };

/** The form state of a stored quota (BY_BYTES without maxBytes is how the server keeps "no file limit"). */
export function quotaForm(quota: Quota | null | undefined): QuotaForm {
  if (!quota) return NO_QUOTA;
  const maxUrls = quota.maxUrls ?? '';
  if (quota.filesQuota === 'BY_FILES' && quota.maxFiles !== null)
    return { ...NO_QUOTA, kind: 'BY_FILES', maxFiles: quota.maxFiles, maxUrls };
  if (quota.filesQuota === 'BY_BYTES' && quota.maxBytes !== null) {
    return { ...NO_QUOTA, kind: 'BY_BYTES', maxBytes: sizeText(Number(quota.maxBytes)), maxUrls };
  }
  return { ...NO_QUOTA, maxUrls };
}

/** What the API takes: null removes the quota altogether. */
export function quotaInput(form: QuotaForm): QuotaInput | null {
  const maxUrls = form.maxUrls === '' ? null : form.maxUrls;
  switch (form.kind) {
    case 'BY_BYTES':
      return { filesQuota: 'BY_BYTES', maxBytes: form.maxBytes.trim(), maxUrls };
    case 'BY_FILES':
      return { filesQuota: 'BY_FILES', maxFiles: form.maxFiles === '' ? null : form.maxFiles, maxUrls };
    case 'NONE':
      return maxUrls === null ? null : { filesQuota: 'NONE', maxUrls };
  }
}

/** A problem the form can see before asking the server, by field. */
export function quotaProblems(form: QuotaForm): Partial<Record<'maxBytes' | 'maxFiles', string>> {
  if (form.kind === 'BY_BYTES') {
    if (form.maxBytes.trim() === '') return { maxBytes: 'Enter the storage limit, for example 10gb.' };
    if (parseSize(form.maxBytes) === null)
      return { maxBytes: 'Write a size such as 500mb, 10gb or a number of bytes.' };
  }
  if (form.kind === 'BY_FILES' && form.maxFiles === '') return { maxFiles: 'Enter the largest number of files.' };
  return {};
}

/** "10.0 GiB, 50 URLs" for the user list. */
export function quotaSummary(quota: Quota | null | undefined): string {
  if (!quota) return 'No limit';
  const parts: string[] = [];
  if (quota.filesQuota === 'BY_BYTES' && quota.maxBytes !== null) parts.push(formatBytes(Number(quota.maxBytes)));
  if (quota.filesQuota === 'BY_FILES' && quota.maxFiles !== null) parts.push(`${quota.maxFiles} files`);
  if (quota.maxUrls !== null) parts.push(`${quota.maxUrls} URLs`);
  return parts.length > 0 ? parts.join(', ') : 'No limit';
}

const numberOrEmpty = (value: string | number): number | '' =>
  typeof value === 'number' ? value : value === '' ? '' : Number(value);

export function QuotaFields({
  value,
  onChange,
  errors = {},
  disabled,
}: {
  value: QuotaForm;
  onChange: (next: QuotaForm) => void;
  errors?: Partial<Record<keyof QuotaForm, string>>;
  disabled?: boolean;
}) {
  const bytes = value.kind === 'BY_BYTES' ? parseSize(value.maxBytes) : null;
  return (
    <Stack gap="xs">
      <div>
        <Text size="sm" fw={500} id="quota-kind-label" mb={4}>
          File quota
        </Text>
        <SegmentedControl
          fullWidth
          aria-labelledby="quota-kind-label"
          disabled={disabled}
          value={value.kind}
          onChange={(kind) => onChange({ ...value, kind: kind as QuotaKind })}
          data={[
            { value: 'NONE', label: 'No limit' },
            { value: 'BY_BYTES', label: 'By size' },
            { value: 'BY_FILES', label: 'By files' },
          ]}
        />
      </div>
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
        {value.kind === 'BY_BYTES' ? (
          <TextInput
            label="Storage limit"
            placeholder="10gb"
            disabled={disabled}
            value={value.maxBytes}
            onChange={(e) => onChange({ ...value, maxBytes: e.currentTarget.value })}
            error={errors.maxBytes}
            description={bytes !== null ? `${formatBytes(bytes)} in all` : 'e.g. 500mb, 10gb'}
          />
        ) : null}
        {value.kind === 'BY_FILES' ? (
          <NumberInput
            label="Largest number of files"
            description="Files kept at once"
            min={0}
            allowDecimal={false}
            allowNegative={false}
            disabled={disabled}
            value={value.maxFiles}
            onChange={(v) => onChange({ ...value, maxFiles: numberOrEmpty(v) })}
            error={errors.maxFiles}
          />
        ) : null}
        <NumberInput
          label="Largest number of short URLs"
          description="Empty: no limit"
          min={0}
          allowDecimal={false}
          allowNegative={false}
          disabled={disabled}
          value={value.maxUrls}
          onChange={(v) => onChange({ ...value, maxUrls: numberOrEmpty(v) })}
          error={errors.maxUrls}
        />
      </SimpleGrid>
    </Stack>
  );
}
