import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { ByteLimit, ByteLimitExceededError } from '../../src/lib/bytes/byte-limit.js';
import { HoldLastChunk } from '../../src/lib/bytes/hold-last-chunk.js';
import { contentDisposition } from '../../src/lib/formats/content-disposition.js';
import { candidateName, extensionOf, fileNameProblem, sanitizeFileName } from '../../src/lib/text/file-names.js';
import { escapeHtml, html } from '../../src/lib/formats/html.js';
import { mediaKind, mimeEssence, servingPolicy } from '../../src/lib/formats/media-types.js';

describe('contentDisposition', () => {
  it('keeps ASCII names as they are and encodes the rest in filename*', () => {
    assert.equal(contentDisposition('inline', 'a b.png'), 'inline; filename="a b.png"');
    assert.equal(
      contentDisposition('attachment', 'naïve "x".txt'),
      `attachment; filename="na_ve _x_.txt"; filename*=UTF-8''na%C3%AFve%20%22x%22.txt`,
    );
    assert.equal(contentDisposition('attachment', 'a\r\nb'), `attachment; filename="a__b"; filename*=UTF-8''a%0D%0Ab`);
    assert.equal(contentDisposition('inline', null), 'inline');
  });
});

describe('file names', () => {
  const base = { length: 8, extension: '.png', originalName: 'My Photo.PNG', now: Date.UTC(2026, 4, 6, 7, 8, 9) };
  it('follow the requested format', () => {
    assert.match(candidateName({ ...base, format: 'random' }, 0), /^[A-Za-z0-9]{8}\.png$/);
    assert.match(candidateName({ ...base, format: 'uuid' }, 0), /^[0-9a-f-]{36}\.png$/);
    assert.equal(candidateName({ ...base, format: 'date' }, 0), '2026-05-06_07-08-09.png');
    assert.equal(candidateName({ ...base, format: 'name' }, 0), 'My Photo.png');
    assert.match(candidateName({ ...base, format: 'random-words' }, 0), /^[a-z]+-[a-z]+-[a-z]+\.png$/);
  });
  it('add a random suffix when a deterministic name was taken', () => {
    assert.match(candidateName({ ...base, format: 'date' }, 1), /^2026-05-06_07-08-09-[A-Za-z0-9]{5}\.png$/);
    assert.match(candidateName({ ...base, format: 'name' }, 3), /^My Photo-[A-Za-z0-9]{7}\.png$/);
  });
  it('never exceed the maximum length', () => {
    const long = candidateName({ ...base, format: 'name', originalName: `${'x'.repeat(500)}.png` }, 2);
    assert.ok(long.length <= 200 && long.endsWith('.png'));
  });
  it('sanitise client names and judge explicit ones', () => {
    assert.equal(sanitizeFileName('C:\\Users\\me\\a.txt'), 'a.txt');
    assert.equal(sanitizeFileName('../../etc/passwd'), 'passwd');
    assert.equal(sanitizeFileName('a\u0000b\u001f.txt'), 'ab.txt');
    assert.equal(sanitizeFileName('..'), '');
    assert.equal(fileNameProblem('report'), null);
    assert.equal(fileNameProblem('a/b'), 'characters');
    assert.equal(fileNameProblem('a\u0001'), 'characters');
    assert.equal(fileNameProblem('a..b'), 'name');
    assert.equal(fileNameProblem('...'), 'name');
    assert.equal(fileNameProblem(' x'), 'name');
    assert.equal(fileNameProblem('x'.repeat(201)), 'name');
    assert.equal(extensionOf('a.TAR.GZ'), '.gz');
    assert.equal(extensionOf('noext'), '');
    assert.equal(extensionOf('weird.ex e'), '');
  });
});

describe('html escaping', () => {
  it('escapes every special character and only trusts marked markup', () => {
    assert.equal(
      escapeHtml(`<a href="x" onclick='y'>&\``),
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&#96;',
    );
    const inner = html`<b>${'<i>'}</b>`;
    assert.equal(html`<p>${inner}${'"'}</p>`.value, '<p><b>&lt;i&gt;</b>&quot;</p>');
  });
});

describe('media types', () => {
  it('validate and normalise MIME types', () => {
    assert.equal(mimeEssence('Text/HTML; charset=utf-8'), 'text/html');
    assert.equal(mimeEssence('nonsense'), null);
    assert.equal(mimeEssence(''), null);
  });
  it('serve only passive types inline', () => {
    for (const type of [
      'text/html',
      'image/svg+xml',
      'application/xml',
      'text/xml',
      'text/javascript',
      'application/xhtml+xml',
      'application/octet-stream',
    ]) {
      assert.equal(servingPolicy(type).inline, false, type);
    }
    assert.deepEqual(servingPolicy('image/png'), { contentType: 'image/png', inline: true });
    assert.deepEqual(servingPolicy('application/json'), { contentType: 'text/plain; charset=utf-8', inline: true });
    assert.equal(mediaKind('video/webm'), 'video');
    assert.equal(mediaKind('image/svg+xml'), 'other');
  });
});

describe('ByteLimit', () => {
  const sink = () => new Writable({ write: (_c, _e, cb) => cb() });
  it('passes up to the limit and fails past it', async () => {
    const ok = new ByteLimit(10);
    await pipeline(Readable.from([Buffer.alloc(4), Buffer.alloc(6)]), ok, sink());
    assert.equal(ok.bytes, 10);
    await assert.rejects(
      pipeline(Readable.from([Buffer.alloc(4), Buffer.alloc(7)]), new ByteLimit(10), sink()),
      ByteLimitExceededError,
    );
  });
});

describe('HoldLastChunk', () => {
  it('passes every chunk, the last one only after its step has run', async () => {
    const events: string[] = [];
    const held = new HoldLastChunk(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      events.push('step');
    });
    const received: string[] = [];
    await pipeline(
      Readable.from([Buffer.from('a'), Buffer.from('b'), Buffer.from('c')]),
      held,
      new Writable({
        write: (chunk: Buffer, _e, cb) => {
          received.push(chunk.toString());
          events.push(`chunk ${chunk.toString()}`);
          cb();
        },
      }),
    );
    assert.deepEqual(received, ['a', 'b', 'c']);
    assert.deepEqual(events.slice(-2), ['step', 'chunk c']);
  });
});
