// Fuzz target `headers`: the response header parsing a session does on every completed fetch:
// Cache-Control (CacheControl.parse), ETag (EntityTag), Content-Type against each media kind
// (MediaSniffer.mimeType) and the body's magic bytes (MediaSniffer.sniff), and the store lifetime
// derived from Cache-Control (PreloadStore.lifetime). The input's first line is the header value;
// the rest is the body prefix.
// Properties: no crash; the String and UTF-8 entry points agree; delta-seconds are within
// 0...2^31 (RFC 9111 §1.2.2); directive names are case-insensitive (an ASCII-uppercased header
// parses the same); appending an empty directive changes nothing; a header over headerBytesMax is
// ignored; the lifetime is ordered (stored ≤ expires ≤ staleUntil ≤ errorUntil ≤ stored + ttl)
// and absent for no-store; an ETag fingerprint is never 0.
import PreloadKit

func asciiUppercased(_ s: String) -> String {
    String(decoding: s.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self)
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzHeaders(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let buffer = UnsafeBufferPointer(start: data, count: size)
    let newline = buffer.firstIndex(of: 10) ?? size
    let headerBytes = UnsafeBufferPointer(rebasing: buffer[0..<newline])
    let prefix = newline < size ? Array(buffer[(newline + 1)...]) : []
    let header = String(decoding: headerBytes, as: UTF8.self)
    let what = header.debugDescription

    let cc = CacheControl.parse(header)
    var copy = header
    let viaUTF8 = copy.withUTF8 { CacheControl.parse(utf8: $0) }
    require(cc == viaUTF8, "\(what): parse(String) and parse(utf8:) differ")
    for v in [cc.maxAgeSeconds, cc.staleWhileRevalidateSeconds, cc.staleIfErrorSeconds] {
        if let v { require(v >= 0 && v <= CacheControl.deltaSecondsMax, "\(what): delta-seconds \(v)") }
    }
    if header.utf8.count > CacheControl.headerBytesMax { require(cc == CacheControl(), "\(what): over-long header not ignored") }
    let upper = asciiUppercased(header)
    if upper.utf8.count == header.utf8.count { require(CacheControl.parse(upper) == cc, "\(what): directive names case-sensitive") }
    if header.utf8.count + 2 <= CacheControl.headerBytesMax {
        require(CacheControl.parse(header + ", ") == cc, "\(what): a trailing empty directive changed the result")
        require(CacheControl.parse(", " + header) == cc, "\(what): a leading empty directive changed the result")
    }

    let stored = Instant(microseconds: 1_700_000_000 * 1_000_000)
    for ttl: Int64 in [0, 1, 14_400, 31_536_000] {
        if let life = PreloadStore.lifetime(of: cc, ttlSeconds: ttl, storedAt: stored) {
            require(!cc.noStore, "\(what): a lifetime for no-store")
            let ttlEnd = stored.advanced(bySeconds: ttl)
            require(stored <= life.expiresAt && life.expiresAt <= life.staleUntil && life.staleUntil <= life.errorUntil && life.errorUntil <= ttlEnd,
                    "\(what): lifetime out of order for ttl \(ttl): \(life)")
            require(life.staleUntil > stored, "\(what): a lifetime that is over when stored")
        }
    }

    require(EntityTag(header).fingerprint != 0, "\(what): ETag fingerprint 0")
    require(EntityTag(header) == EntityTag(String(header)), "\(what): ETag not a function of its bytes")

    let sniffed = MediaSniffer.sniff(prefix)
    for kind in MediaKind.allCases {
        let matches = MediaSniffer.mimeType(header, matches: kind)
        require(MediaSniffer.mimeType(upper, matches: kind) == matches, "\(what): MIME type match is case-sensitive for \(kind)")
    }
    _ = sniffed
    return 0
}
