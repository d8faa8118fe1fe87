#!/usr/bin/env python3
"""stream-mutate - damage the payloads of a datacrumbs stream, keeping the
frames' checksums right, so readers must cope with nonsense inside
well-formed frames (t/4000-aggregate.t).

  stream-mutate.py IN OUT SEED [N]    flip 1-4 random payload bytes; with
                                      N, write OUT.1 .. OUT.N from seeds
                                      SEED .. SEED+N-1 (python starts slowly)
  stream-mutate.py IN OUT --add TYPE HEX
                                      insert a frame of TYPE whose payload
                                      is HEX before the last frame
  stream-mutate.py IN OUT --add-before BEFORE TYPE HEX
                                      the same, before the first frame of
                                      type BEFORE

Only the layout of dc-stream(5) is used: the header size at offset 10,
16-byte frame headers (type, flags, length, crc32), payloads padded to 8.
"""
import random
import struct
import sys
import zlib


def frames(data):
    hsize = struct.unpack_from('=H', data, 10)[0]
    pos, out = hsize, []
    while pos + 16 <= len(data):
        ftype, _flags, length, _crc = struct.unpack_from('=HHII', data, pos)
        out.append([ftype, bytearray(data[pos + 16:pos + 16 + length])])
        pos += 16 + ((length + 7) & ~7)
    return data[:hsize], out


def encode(header, frs):
    out = bytearray(header)
    for ftype, payload in frs:
        crc = zlib.crc32(bytes(payload)) & 0xffffffff
        out += struct.pack('=HHII', ftype, 0, len(payload), crc) + bytes(4)
        out += payload + bytes(((len(payload) + 7) & ~7) - len(payload))
    return bytes(out)


def main():
    data = open(sys.argv[1], 'rb').read()
    header, frs = frames(data)
    if sys.argv[3] == '--add':
        frs.insert(len(frs) - 1,
                   [int(sys.argv[4]), bytearray.fromhex(sys.argv[5])])
        open(sys.argv[2], 'wb').write(encode(header, frs))
        return
    if sys.argv[3] == '--add-before':
        at = [t for t, _ in frs].index(int(sys.argv[4]))
        frs.insert(at, [int(sys.argv[5]), bytearray.fromhex(sys.argv[6])])
        open(sys.argv[2], 'wb').write(encode(header, frs))
        return
    seed = int(sys.argv[3])
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    for n in range(max(count, 1)):
        rng = random.Random(seed + n)
        mutated = [[t, bytearray(p)] for t, p in frs]
        for _ in range(rng.randint(1, 4)):
            ftype, payload = rng.choice(mutated)
            if not payload:
                continue
            i = rng.randrange(len(payload))
            payload[i] = rng.choice([0, 0xff, rng.randrange(256),
                                     payload[i] ^ 0x80])
        name = sys.argv[2] + ('.%d' % (n + 1) if count else '')
        open(name, 'wb').write(encode(header, mutated))


main()
