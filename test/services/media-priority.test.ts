// Background image work runs below the requests: after a thumbnail is made, every libvips worker thread of the
// process has the background nice value (Linux), so that making thumbnails does not take the CPU from uploads.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { it } from 'node:test';
import sharp from 'sharp';
import { BACKGROUND_NICE, imageThumbnail } from '../../src/services/media/decode.js';

it(
  'makes thumbnails on libvips threads with a lower CPU priority',
  { skip: process.platform !== 'linux' },
  async () => {
    const photo = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#6a8' } })
      .jpeg()
      .toBuffer();
    await Promise.all([imageThumbnail(photo), imageThumbnail(photo)]);
    const threads = readdirSync('/proc/self/task')
      .filter((tid) => readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').startsWith('libvips'))
      .map((tid) => ({ tid, nice: os.getPriority(Number(tid)) }));
    assert.ok(threads.length > 0, 'libvips ran worker threads');
    assert.deepEqual(
      threads.filter((t) => t.nice !== BACKGROUND_NICE),
      [],
      'every libvips worker thread runs at the background priority',
    );
    assert.equal(os.getPriority(), 0, 'the process itself (the requests) keeps its priority');
  },
);
