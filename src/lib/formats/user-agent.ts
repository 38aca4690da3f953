// A rough reading of a User-Agent header into the client (browser or tool) and device (OS) shown on sessions.

const CLIENTS: Array<[RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\/[\d.]+/, 'Edge'],
  [/\bOPR\/[\d.]+/, 'Opera'],
  [/\bFirefox\/[\d.]+/, 'Firefox'],
  [/\bChrom(?:e|ium)\/[\d.]+/, 'Chrome'],
  [/\bVersion\/[\d.]+.*Safari\//, 'Safari'],
  [/\bcurl\/[\d.]+/, 'curl'],
  [/\bShareX\b/i, 'ShareX'],
  [/\bFlameshot\b/i, 'Flameshot'],
  [/\bWget\b/i, 'Wget'],
  [/\bnode(?:-fetch)?\b|\bundici\b/i, 'Node.js'],
  [/\bpython-requests\b|\bPython\b/i, 'Python'],
  [/\bPostmanRuntime\b/, 'Postman'],
];

const DEVICES: Array<[RegExp, string]> = [
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bAndroid\b/, 'Android'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bLinux\b/, 'Linux'],
];

function firstMatch(table: Array<[RegExp, string]>, ua: string): string | undefined {
  return table.find(([re]) => re.test(ua))?.[1];
}

export function describeUserAgent(ua: string | undefined): { client: string; device: string } {
  const text = ua ?? '';
  return { client: firstMatch(CLIENTS, text) ?? 'Unknown', device: firstMatch(DEVICES, text) ?? 'Unknown' };
}
