// Asking an LDAP directory (Active Directory, OpenLDAP, FreeIPA, lldap, Authentik's outpost) whether a name and a
// password are a person's, through ldapts: find the entry with Chute's own account (LDAP_BIND_DN, or anonymously),
// bind as the entry with the password on a connection of its own, then read the group memberships. Every connection
// is TLS (ldaps://, or StartTLS before any bind) with the certificate checked, unless LDAP_STARTTLS=false says the
// network is trusted. The typed name goes into the filter escaped (RFC 4515), so it can only ever match itself.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { Client, Entry } from 'ldapts';
import type { Config } from '../../config.js';
import { loadLdapts } from '../../lib/lazy-modules.js';

/** The directory as LDAP_* configures it (null: no LDAP sign-in). */
export interface Directory {
  url: string;
  startTls: boolean;
  caFile: string | undefined;
  bindDn: string | undefined;
  bindPassword: string | undefined;
  searchBase: string;
  searchFilter: string;
  adminGroup: string | undefined;
  allowedGroup: string | undefined;
  timeoutMs: number;
}

export function directoryOf(config: Config): Directory | null {
  if (!config.LDAP_URL || !config.LDAP_SEARCH_BASE) return null;
  return {
    url: config.LDAP_URL,
    startTls: config.LDAP_STARTTLS,
    caFile: config.LDAP_TLS_CA,
    bindDn: config.LDAP_BIND_DN,
    bindPassword: config.LDAP_BIND_PASSWORD,
    searchBase: config.LDAP_SEARCH_BASE,
    searchFilter: config.LDAP_SEARCH_FILTER,
    adminGroup: config.LDAP_ADMIN_GROUP,
    allowedGroup: config.LDAP_ALLOWED_GROUP,
    timeoutMs: config.LDAP_TIMEOUT * 1000,
  };
}

/** The person a name and password belong to, as the directory knows them. */
export interface DirectoryPerson {
  /** A stable id of the entry (entryUUID, objectGUID, ipaUniqueID, nsUniqueId), else `dn:` and its DN lower-cased. */
  entryId: string;
  dn: string;
  /** Whether the person is in LDAP_ADMIN_GROUP (undefined: no such group configured). */
  inAdminGroup: boolean | undefined;
  /** Whether the person is in LDAP_ALLOWED_GROUP (true when none is configured). */
  inAllowedGroup: boolean;
}

/** The directory could not be asked (down, TLS refused, Chute's own bind refused): nobody's password was judged. */
export class DirectoryUnavailable extends Error {
  override readonly name = 'DirectoryUnavailable';
}

/**
 * A value as it may stand in an LDAP filter (RFC 4515, section 3): `*`, `(`, `)`, `\` and NUL as \XX escapes, and the
 * other control characters too; everything else as it is (UTF-8).
 */
export function escapeFilterValue(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[*()\\\u0000-\u001f\u007f]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** A DN compared loosely: case and the spaces around `,` and `=` aside. */
export function normalizedDn(dn: string): string {
  return dn
    .trim()
    .toLowerCase()
    .replace(/\s*,\s*/g, ',')
    .replace(/\s*=\s*/g, '=');
}

const ID_ATTRIBUTES = ['entryUUID', 'objectGUID', 'ipaUniqueID', 'nsUniqueId'] as const;

/**
 * The person whose name (as LDAP_SEARCH_FILTER finds it) and password these are; null when no entry or more than one
 * matches, or the password is wrong or empty (an empty password would be an anonymous bind, which "succeeds").
 * DirectoryUnavailable when the directory cannot say.
 */
export async function authenticate(
  dir: Directory,
  username: string,
  password: string,
): Promise<DirectoryPerson | null> {
  if (username === '' || password === '') return null;
  const service = await connect(dir);
  try {
    if (dir.bindDn) await serviceBind(service, dir.bindDn, dir.bindPassword ?? '');
    const entry = await findEntry(dir, service, username);
    if (!entry) return null;
    if (!(await passwordMatches(dir, entry.dn, password))) return null;
    const uid = firstString(entry.uid);
    return {
      entryId: entryIdOf(entry),
      dn: entry.dn,
      inAdminGroup: dir.adminGroup === undefined ? undefined : await isMember(service, dir.adminGroup, entry, uid),
      inAllowedGroup: dir.allowedGroup === undefined ? true : await isMember(service, dir.allowedGroup, entry, uid),
    };
  } catch (err) {
    throw unavailable(err);
  } finally {
    await service.unbind().catch(() => undefined);
  }
}

async function connect(dir: Directory): Promise<Client> {
  const { Client } = await loadLdapts();
  const url = new URL(dir.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const tlsOptions: ConnectionOptions = {
    minVersion: 'TLSv1.2',
    ...(dir.caFile ? { ca: readFileSync(dir.caFile, 'utf8') } : {}),
    // A name is checked against the certificate's names; an address against its IP addresses.
    ...(isIP(host) === 0 ? { servername: host } : {}),
  };
  // ldapts opens TLS at once whenever it is given TLS options: only for ldaps://.
  const client = new Client({
    url: dir.url,
    timeout: dir.timeoutMs,
    connectTimeout: dir.timeoutMs,
    ...(url.protocol === 'ldaps:' ? { tlsOptions } : {}),
  });
  if (url.protocol === 'ldap:' && dir.startTls) {
    try {
      await client.startTLS({ ...tlsOptions, host });
    } catch (err) {
      await client.unbind().catch(() => undefined);
      throw unavailable(err, 'StartTLS failed');
    }
  }
  return client;
}

async function serviceBind(client: Client, dn: string, password: string): Promise<void> {
  const { InvalidCredentialsError } = await loadLdapts();
  try {
    await client.bind(dn, password);
  } catch (err) {
    if (err instanceof InvalidCredentialsError) {
      throw new DirectoryUnavailable('the directory refused the password of LDAP_BIND_DN', { cause: err });
    }
    throw err;
  }
}

/** The one entry the filter finds for the name (none, or several: null). */
async function findEntry(dir: Directory, client: Client, username: string): Promise<Entry | null> {
  const { SizeLimitExceededError } = await loadLdapts();
  const filter = dir.searchFilter.replaceAll('{username}', escapeFilterValue(username));
  try {
    const { searchEntries } = await client.search(dir.searchBase, {
      scope: 'sub',
      filter,
      sizeLimit: 2,
      attributes: ['uid', 'memberOf', ...ID_ATTRIBUTES],
      explicitBufferAttributes: ['objectGUID'],
    });
    return searchEntries.length === 1 ? searchEntries[0]! : null;
  } catch (err) {
    if (err instanceof SizeLimitExceededError) return null;
    throw err;
  }
}

/** A bind as the entry, on a connection of its own (the service connection keeps its own identity). */
async function passwordMatches(dir: Directory, dn: string, password: string): Promise<boolean> {
  const { InvalidCredentialsError } = await loadLdapts();
  const client = await connect(dir);
  try {
    await client.bind(dn, password);
    return true;
  } catch (err) {
    if (err instanceof InvalidCredentialsError) return false;
    throw err;
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

/**
 * Whether the entry is in the group: its `memberOf` names the group (Active Directory, FreeIPA, lldap, OpenLDAP with
 * the memberof overlay), or the group lists it in `member`, `uniqueMember` (by DN) or `memberUid` (by uid).
 */
async function isMember(client: Client, groupDn: string, entry: Entry, uid: string | undefined): Promise<boolean> {
  const wanted = normalizedDn(groupDn);
  if (strings(entry.memberOf).some((g) => normalizedDn(g) === wanted)) return true;
  const { NoSuchObjectError } = await loadLdapts();
  const dn = escapeFilterValue(entry.dn);
  const byUid = uid ? `(memberUid=${escapeFilterValue(uid)})` : '';
  try {
    const { searchEntries } = await client.search(groupDn, {
      scope: 'base',
      filter: `(|(member=${dn})(uniqueMember=${dn})${byUid})`,
      attributes: ['1.1'],
    });
    return searchEntries.length > 0;
  } catch (err) {
    // A group that does not exist has no members.
    if (err instanceof NoSuchObjectError) return false;
    throw err;
  }
}

function entryIdOf(entry: Entry): string {
  for (const name of ID_ATTRIBUTES) {
    const value = entry[name];
    const first = Array.isArray(value) ? value[0] : value;
    if (Buffer.isBuffer(first) && first.length > 0) return `${name}:${first.toString('hex')}`;
    if (typeof first === 'string' && first !== '') return `${name}:${first.toLowerCase()}`;
  }
  return `dn:${normalizedDn(entry.dn)}`;
}

function strings(value: Entry[string] | undefined): string[] {
  if (value === undefined) return [];
  const all = Array.isArray(value) ? value : [value];
  return all.map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : v));
}

function firstString(value: Entry[string] | undefined): string | undefined {
  return strings(value)[0];
}

function unavailable(err: unknown, what = 'the directory could not be asked'): Error {
  if (err instanceof DirectoryUnavailable) return err;
  const detail =
    err instanceof Error ? `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}` : String(err);
  return new DirectoryUnavailable(`${what}: ${detail}`, { cause: err });
}
