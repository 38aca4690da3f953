// Byte sizes as an admin types them ("10gb", "512 MiB", "1048576"): read by the server's own parser (src/lib/text/sizes.ts,
// a module without Node imports, so the dashboard runs the very same code: binary units, 1kb = 1024 bytes), and
// written back without losing a byte.
export { parseByteSize as parseSize, byteSizeText as sizeText } from '../../../src/lib/text/sizes.js';
