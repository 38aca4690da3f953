// A real OpenLDAP server for tests: Debian's slapd (`apt-get install slapd ldap-utils`), started in a temp folder of
// its own with a generated slapd.conf (mdb backend, suffix dc=example,dc=test), listening on ldap:// (StartTLS) and
// ldaps:// on free loopback ports with a certificate from a throwaway CA made with openssl, loaded with ldapadd, and
// stopped by its PID. It can be stopped and started again on the same ports and data (a directory that goes down).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const SLAPD = '/usr/sbin/slapd';
export const SUFFIX = 'dc=example,dc=test';
export const ROOT_DN = `cn=admin,${SUFFIX}`;
const ROOT_PASSWORD = 'admin-secret-for-tests';
/** Chute's own account: it may read people and groups, never passwords. */
export const READER_DN = `cn=chute,ou=services,${SUFFIX}`;
export const READER_PASSWORD = 'reader-secret-for-tests';

export function slapdAvailable(): boolean {
  return existsSync(SLAPD) && existsSync('/usr/bin/ldapadd') && existsSync('/etc/ldap/schema/core.schema');
}

export interface TestSlapd {
  /** ldap://127.0.0.1:<port> (plain, or StartTLS). */
  url: string;
  /** ldaps://127.0.0.1:<port>. */
  ldapsUrl: string;
  /** The PEM file of the CA that signed the server's certificate (for 127.0.0.1 and localhost). */
  caFile: string;
  /** Adds entries (LDIF) as the directory's root. */
  add(ldif: string): Promise<void>;
  /** Changes entries (LDIF with changetype) as the directory's root. */
  modify(ldif: string): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A CA and a server certificate for 127.0.0.1 and localhost, signed by it. */
async function makeCertificates(dir: string): Promise<void> {
  const f = (name: string) => path.join(dir, name);
  await run(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=Chute test CA'].concat([
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.pem'),
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]),
  );
  await run('openssl', [
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    f('server.key'),
    '-out',
    f('server.csr'),
  ]);
  await writeFile(f('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  await run(
    'openssl',
    ['x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key')].concat([
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      f('server.ext'),
      '-out',
      f('server.pem'),
    ]),
  );
}

function slapdConf(dir: string): string {
  const schema = ['core', 'cosine', 'inetorgperson', 'nis'].map((s) => `include /etc/ldap/schema/${s}.schema`);
  return [
    ...schema,
    'modulepath /usr/lib/ldap',
    'moduleload back_mdb',
    `pidfile ${path.join(dir, 'slapd.pid')}`,
    `argsfile ${path.join(dir, 'slapd.args')}`,
    `TLSCACertificateFile ${path.join(dir, 'ca.pem')}`,
    `TLSCertificateFile ${path.join(dir, 'server.pem')}`,
    `TLSCertificateKeyFile ${path.join(dir, 'server.key')}`,
    'database mdb',
    'maxsize 104857600',
    `suffix "${SUFFIX}"`,
    `rootdn "${ROOT_DN}"`,
    `rootpw ${ROOT_PASSWORD}`,
    `directory ${path.join(dir, 'db')}`,
    // Passwords: only to bind with. Everything else: read by whoever bound (not anonymously).
    'access to attrs=userPassword by anonymous auth by * none',
    'access to * by users read by * none',
    '',
  ].join('\n');
}

const BASE_LDIF = `dn: ${SUFFIX}
objectClass: dcObject
objectClass: organization
dc: example
o: Example

dn: ou=people,${SUFFIX}
objectClass: organizationalUnit
ou: people

dn: ou=groups,${SUFFIX}
objectClass: organizationalUnit
ou: groups

dn: ou=services,${SUFFIX}
objectClass: organizationalUnit
ou: services

dn: ${READER_DN}
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: chute
userPassword: ${READER_PASSWORD}
`;

export async function startSlapd(): Promise<TestSlapd> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-slapd-'));
  await mkdir(path.join(dir, 'db'));
  await makeCertificates(dir);
  const conf = path.join(dir, 'slapd.conf');
  await writeFile(conf, slapdConf(dir));
  const [port, tlsPort] = [await freePort(), await freePort()];
  const url = `ldap://127.0.0.1:${port}`;
  const ldapsUrl = `ldaps://127.0.0.1:${tlsPort}`;
  let child: ChildProcess | undefined;
  let output = '';

  const start = async () => {
    // -d 0: stays in the foreground (the PID is the child's), logging nothing.
    const proc = spawn(SLAPD, ['-f', conf, '-h', `${url}/ ${ldapsUrl}/`, '-d', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    proc.stdout.on('data', (d: Buffer) => (output += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const deadline = Date.now() + 10_000;
    while (!(await accepts(port))) {
      if (proc.exitCode !== null) throw new Error(`slapd exited (${proc.exitCode}): ${output}`);
      if (Date.now() > deadline) throw new Error(`slapd did not listen on ${port}: ${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  const ldif = async (program: 'ldapadd' | 'ldapmodify', text: string) => {
    const file = path.join(dir, `load-${Date.now()}-${Math.random().toString(36).slice(2)}.ldif`);
    await writeFile(file, text);
    await run(program, ['-x', '-H', url, '-D', ROOT_DN, '-w', ROOT_PASSWORD, '-f', file]);
  };

  await start();
  await ldif('ldapadd', BASE_LDIF);
  return {
    url,
    ldapsUrl,
    caFile: path.join(dir, 'ca.pem'),
    add: (text) => ldif('ldapadd', text),
    modify: (text) => ldif('ldapmodify', text),
    stop,
    start,
    close: async () => {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The LDIF of a person under ou=people (uid, cn, sn, password). */
export function personLdif(uid: string, password: string): string {
  return `dn: uid=${uid},ou=people,${SUFFIX}
objectClass: inetOrgPerson
objectClass: posixAccount
uid: ${uid}
cn: ${uid}
sn: ${uid}
uidNumber: 10000
gidNumber: 10000
homeDirectory: /home/${uid}
userPassword: ${password}
`;
}

/** The LDIF of a groupOfNames under ou=groups with these uids as members (by DN). */
export function groupLdif(cn: string, uids: string[]): string {
  const members = uids.map((u) => `member: uid=${u},ou=people,${SUFFIX}`).join('\n');
  return `dn: cn=${cn},ou=groups,${SUFFIX}
objectClass: groupOfNames
cn: ${cn}
${members || `member: ${ROOT_DN}`}
`;
}

export function groupDn(cn: string): string {
  return `cn=${cn},ou=groups,${SUFFIX}`;
}
