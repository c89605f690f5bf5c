// The page's state in the URL fragment: JSON, deflated, base64url. `z.` marks
// a deflated state, `j.` a plain one (browsers without CompressionStream).

function toBase64Url(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(s) {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

async function pipe(bytes, stream) {
  const out = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

export async function encodeState(state) {
  const bytes = new TextEncoder().encode(JSON.stringify(state));
  if (typeof CompressionStream === 'function') {
    return `z.${toBase64Url(await pipe(bytes, new CompressionStream('deflate-raw')))}`;
  }
  return `j.${toBase64Url(bytes)}`;
}

/** The state a fragment holds, or null when it holds none (or is damaged). */
export async function decodeState(fragment) {
  try {
    if (fragment.startsWith('z.')) {
      const bytes = await pipe(fromBase64Url(fragment.slice(2)), new DecompressionStream('deflate-raw'));
      return JSON.parse(new TextDecoder().decode(bytes));
    }
    if (fragment.startsWith('j.')) return JSON.parse(new TextDecoder().decode(fromBase64Url(fragment.slice(2))));
  } catch {
    return null;
  }
  return null;
}
