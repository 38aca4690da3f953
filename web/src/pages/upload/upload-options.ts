// The upload options a person picks on the upload page, kept in this browser (except the password), and turned into
// the x-service-* headers of src/http/uploads/headers.ts.
import { EXPIRY_FROM_NOW, readExpiryDate, type ExpiryPreset } from '../../lib/expiry';
import { NAME_FORMATS, type NameFormat } from '../../lib/name-formats';
import { headerText } from './transport';

export type ExpiryChoice = 'default' | 'never' | ExpiryPreset | 'custom';
export type FormatChoice = 'default' | NameFormat;

export const EXPIRY_CHOICES: ReadonlyArray<{ value: ExpiryChoice; label: string }> = [
  { value: 'default', label: 'Server default' },
  ...EXPIRY_FROM_NOW,
];

export const FORMAT_CHOICES: ReadonlyArray<{ value: FormatChoice; label: string }> = [
  { value: 'default', label: 'Server default' },
  ...NAME_FORMATS.map((f) => ({ value: f.value, label: f.label })),
];

export interface UploadOptions {
  expiry: ExpiryChoice;
  /** A datetime-local value (local time, no zone) when expiry is 'custom'. */
  expiresOn: string;
  format: FormatChoice;
  password: string;
  /** Empty: no limit. */
  maxViews: number | '';
  folderId: string | null;
  /** Keep each file's name as its original name; null: as the server's filesKeepOriginalName says. */
  keepOriginalName: boolean | null;
  /** Links without the extension (x-service-extensionless); null: the server's setting decides. */
  extensionless: boolean | null;
}

export const DEFAULT_OPTIONS: UploadOptions = {
  expiry: 'default',
  expiresOn: '',
  format: 'default',
  password: '',
  maxViews: '',
  folderId: null,
  keepOriginalName: null,
  extensionless: null,
};

const STORAGE_KEY = 'chute.upload.options';
/**
 * The saved options' shape. Saves without it come from when "keep original file name" was off unless switched on,
 * and saved that false whether or not it was chosen: their keepOriginalName is no choice, so the server's default
 * applies instead.
 */
const SAVED_VERSION = 2;

/** The options of the last visit (never the password). */
export function loadOptions(): UploadOptions {
  try {
    const saved = JSON.parse(window.localStorage.getItem(STORAGE_KEY) ?? '{}') as Partial<UploadOptions> & {
      v?: number;
    };
    const { v: version, ...chosen } = saved;
    if (version !== SAVED_VERSION || typeof chosen.keepOriginalName !== 'boolean') delete chosen.keepOriginalName;
    const options = { ...DEFAULT_OPTIONS, ...chosen, password: '' };
    if (!EXPIRY_CHOICES.some((c) => c.value === options.expiry)) options.expiry = 'default';
    if (!FORMAT_CHOICES.some((c) => c.value === options.format)) options.format = 'default';
    if (typeof options.extensionless !== 'boolean') options.extensionless = null;
    return options;
  } catch {
    return { ...DEFAULT_OPTIONS };
  }
}

export function saveOptions(options: UploadOptions): void {
  try {
    const { password: _password, ...rest } = options;
    window.localStorage.setItem(STORAGE_KEY, JSON.stringify({ ...rest, v: SAVED_VERSION }));
  } catch {
    // Private mode or a full storage: the options simply are not remembered.
  }
}

/** Why the options cannot be used as they are, in words (null when they can). */
export function optionsProblem(options: UploadOptions, now = Date.now()): string | null {
  if (options.expiry === 'custom') {
    const at = readExpiryDate(options.expiresOn, now);
    if (at === 'missing') return 'Choose the date the files expire on, or another expiry.';
    if (at === 'past') return 'The expiry date is in the past: choose a later one.';
  }
  if (options.maxViews !== '' && (!Number.isInteger(options.maxViews) || options.maxViews < 1)) {
    return 'Max views must be a whole number of at least 1.';
  }
  return null;
}

/** Whether the files keep their names as their original names: the choice made, else the server's default. */
export function keepsOriginalName(options: UploadOptions, serverKeeps: boolean): boolean {
  return options.keepOriginalName ?? serverKeeps;
}

/**
 * The x-service-* headers for these options; throws an Error in words when they cannot be used. The original name's
 * header is always sent, true or false, so that the server stores what the page showed.
 */
export function optionHeaders(options: UploadOptions, serverKeeps: boolean): Record<string, string> {
  const problem = optionsProblem(options);
  if (problem) throw new Error(problem);
  const headers: Record<string, string> = {};
  if (options.expiry === 'custom') headers['x-service-deletes-at'] = new Date(options.expiresOn).toISOString();
  else if (options.expiry !== 'default') headers['x-service-deletes-at'] = options.expiry;
  if (options.format !== 'default') headers['x-service-format'] = options.format;
  if (options.password !== '') headers['x-service-password'] = headerText(options.password);
  if (options.maxViews !== '') headers['x-service-max-views'] = String(options.maxViews);
  if (options.folderId) headers['x-service-folder'] = options.folderId;
  headers['x-service-original-name'] = String(keepsOriginalName(options, serverKeeps));
  if (options.extensionless !== null) headers['x-service-extensionless'] = String(options.extensionless);
  return headers;
}

/** A one-line summary of the options that differ from the defaults ("Expires in 7 days · Password · …"). */
export function optionsSummary(options: UploadOptions, folderName: string | null, serverKeeps: boolean): string[] {
  const parts: string[] = [];
  if (options.expiry === 'never') parts.push('Never expire');
  else if (options.expiry === 'custom') {
    const at = new Date(options.expiresOn);
    parts.push(
      Number.isNaN(at.getTime())
        ? 'Expiry date missing'
        : `Expire ${at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}`,
    );
  } else if (options.expiry !== 'default') {
    parts.push(
      `Expire ${EXPIRY_CHOICES.find((c) => c.value === options.expiry)?.label.toLowerCase() ?? options.expiry}`,
    );
  }
  if (options.format !== 'default')
    parts.push(`${FORMAT_CHOICES.find((c) => c.value === options.format)?.label ?? options.format} names`);
  if (options.password) parts.push('Password');
  if (options.maxViews !== '') parts.push(`${options.maxViews} view${options.maxViews === 1 ? '' : 's'} max`);
  if (options.folderId) parts.push(`Folder: ${folderName ?? '…'}`);
  if (options.keepOriginalName !== null && options.keepOriginalName !== serverKeeps) {
    parts.push(options.keepOriginalName ? 'Original names kept' : 'Original names not kept');
  }
  if (options.extensionless !== null)
    parts.push(options.extensionless ? 'Links without extension' : 'Links with extension');
  return parts;
}
