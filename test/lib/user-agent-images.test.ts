import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeUserAgent } from '../../src/lib/formats/user-agent.js';
import { parseBase64Image, sniffImageType } from '../../src/lib/formats/images.js';
import { PNG_1X1 } from '../support/fixtures.js';

describe('describeUserAgent', () => {
  it('names common browsers, tools and systems', () => {
    assert.deepEqual(
      describeUserAgent(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
      ),
      { client: 'Chrome', device: 'Windows' },
    );
    assert.deepEqual(
      describeUserAgent(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
      ),
      { client: 'Safari', device: 'iPhone' },
    );
    assert.deepEqual(describeUserAgent('Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0'), {
      client: 'Firefox',
      device: 'Linux',
    });
    assert.deepEqual(describeUserAgent('curl/8.4.0'), { client: 'curl', device: 'Unknown' });
    assert.deepEqual(describeUserAgent(undefined), { client: 'Unknown', device: 'Unknown' });
  });
});

describe('parseBase64Image', () => {
  it('accepts bare base64 and data URLs, typed by their bytes', () => {
    const bare = parseBase64Image(PNG_1X1, 1024);
    assert.ok(bare.ok);
    assert.equal(bare.dataUrl, `data:image/png;base64,${PNG_1X1}`);
    // A data URL that claims JPEG but holds a PNG is stored as what it is.
    const lying = parseBase64Image(`data:image/jpeg;base64,${PNG_1X1}`, 1024);
    assert.ok(lying.ok && lying.dataUrl.startsWith('data:image/png;'));
  });
  it('refuses non-images, non-base64 and oversized images', () => {
    const notImage = parseBase64Image(Buffer.from('<svg onload=alert(1)>').toString('base64'), 1024);
    assert.equal(notImage.ok, false);
    assert.equal(parseBase64Image('not base64 at all!', 1024).ok, false);
    assert.equal(parseBase64Image('', 1024).ok, false);
    const big = parseBase64Image(PNG_1X1, 10);
    assert.deepEqual(big, { ok: false, reason: 'larger than 10 bytes' });
  });
  it('sniffs JPEG, GIF and WebP', () => {
    assert.equal(sniffImageType(Buffer.from([0xff, 0xd8, 0xff, 0xe0])), 'image/jpeg');
    assert.equal(sniffImageType(Buffer.from('GIF89a....')), 'image/gif');
    assert.equal(sniffImageType(Buffer.from('RIFF0000WEBPVP8 ')), 'image/webp');
    assert.equal(sniffImageType(Buffer.from('hello')), null);
  });
});
