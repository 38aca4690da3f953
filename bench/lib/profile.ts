// Reads a V8 .cpuprofile (node --cpu-prof) and lists where the time went: by function and by package.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
}

function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native / V8 builtins)';
  if (url.startsWith('node:')) return 'node core';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  const own = /\/(src\/.+)$/.exec(url);
  return own ? `chute ${own[1]!.replace(/\/[^/]+$/, '/')}` : url;
}

export function summariseProfile(file: string, top = 15): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const total = profile.nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0) || 1;
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.replace(/^.*\/(node_modules|src)\//, '$1/')}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(key, (byFunction.get(key) ?? 0) + hits);
    const pkg = packageOf(url, functionName || '(anonymous)');
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + hits);
  }
  const fmt = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `  ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`)
      .join('\n');
  const seconds = ((profile.endTime - profile.startTime) / 1e6).toFixed(1);
  return `CPU profile ${file} (${seconds} s, self time)\nBy package:\n${fmt(byPackage)}\nBy function:\n${fmt(byFunction)}`;
}
