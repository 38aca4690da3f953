// Reads a V8 .cpuprofile (node --cpu-prof) and lists where the time went: by function, by package and by the Chute
// function that was running (the innermost frame of src/ on the stack). The profile covers the whole process, most of
// it idle (start-up, the references' turns): the shares are counted over the seconds in which the main thread was
// busy at least half of the time, and a line per second shows how busy it was, so that "idle 65%" over the whole run
// is not read as a main thread with room to spare while it was loaded.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** A second counts as loaded when the main thread was busy at least this share of it. */
const BUSY_SECOND = 0.5;

function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native / V8 builtins)';
  if (url.startsWith('node:')) return 'node core';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  const own = /\/(src\/.+)$/.exec(url);
  return own ? `chute ${own[1]!.replace(/\/[^/]+$/, '/')}` : url;
}

function functionOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${url.replace(/^.*\/(node_modules|src)\//, '$1/')}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'} ${where}`.trim();
}

const isChute = (node: ProfileNode) =>
  /\/src\//.test(node.callFrame.url) && !node.callFrame.url.includes('node_modules');

export function summariseProfile(file: string, top = 15): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];

  // Which second of the profile each sample fell in, and how busy each second was.
  const secondOf: number[] = [];
  const seconds = new Map<number, { busy: number; all: number }>();
  let at = profile.startTime;
  samples.forEach((id, i) => {
    at += deltas[i] ?? 0;
    const second = Math.floor((at - profile.startTime) / 1e6);
    secondOf.push(second);
    const s = seconds.get(second) ?? { busy: 0, all: 0 };
    s.all++;
    if (nodes.get(id)?.callFrame.functionName !== '(idle)') s.busy++;
    seconds.set(second, s);
  });
  const loaded = new Set([...seconds].filter(([, s]) => s.busy >= BUSY_SECOND * s.all).map(([k]) => k));

  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  const byChute = new Map<string, number>();
  let total = 0;
  const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  samples.forEach((id, i) => {
    if (!loaded.has(secondOf[i]!)) return;
    const node = nodes.get(id)!;
    total++;
    add(byFunction, functionOf(node));
    add(byPackage, packageOf(node.callFrame.url, node.callFrame.functionName || '(anonymous)'));
    let frame: number | undefined = id;
    while (frame !== undefined && !isChute(nodes.get(frame)!)) frame = parent.get(frame);
    add(byChute, frame === undefined ? '(no Chute frame: Node, Fastify, idle, GC)' : functionOf(nodes.get(frame)!));
  });
  const fmt = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `  ${((100 * v) / (total || 1)).toFixed(1).padStart(5)}%  ${k}`)
      .join('\n');
  const timeline = [...seconds]
    .sort((a, b) => a[0] - b[0])
    .map(([k, s]) => `${k}:${Math.round((100 * s.busy) / s.all)}`)
    .join(' ');
  const length = ((profile.endTime - profile.startTime) / 1e6).toFixed(1);
  return (
    `CPU profile ${file} (${length} s)\n` +
    `Main thread busy per second (second:percent): ${timeline}\n` +
    `Shares over the ${loaded.size} seconds busy >= ${100 * BUSY_SECOND}% (${total} samples)\n` +
    `By package (self time):\n${fmt(byPackage)}\nBy function (self time):\n${fmt(byFunction)}\n` +
    `By the Chute function running (innermost src/ frame, with all it called):\n${fmt(byChute)}`
  );
}
