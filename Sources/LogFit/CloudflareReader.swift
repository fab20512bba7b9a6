/// Cloudflare Logpush `http_requests` in NDJSON (one flat object per line).
///
/// Fields read: `EdgeStartTimestamp` (RFC 3339 string, or unix seconds / nanoseconds as a number,
/// per the job's `timestamp_format`), optional `EdgeEndTimestamp` (for the transfer time),
/// `EdgeTimeToFirstByteMs`, `OriginResponseDurationMs` (0 = no origin contact), `CacheCacheStatus`
/// (hit, stale, updating, revalidated → hit; miss, expired → miss; others → other), `EdgeColoCode`,
/// `EdgeResponseBytes`, `EdgeResponseStatus`, optional `OriginResponseStatus`.
package enum CloudflareReader {
    static let keys = ["EdgeStartTimestamp", "EdgeEndTimestamp", "EdgeTimeToFirstByteMs", "OriginResponseDurationMs",
                       "CacheCacheStatus", "EdgeColoCode", "EdgeResponseBytes", "EdgeResponseStatus", "OriginResponseStatus"]

    package static func read(_ source: LineSource, problems: inout ReadProblems, emit: (EdgeRecord) -> Void) {
        var scanner = FlatJSONScanner(keys: keys)
        let path = source.path
        let note = source.forEachLine { line, number, truncated in
            let trimmed = line.trimmed()
            if trimmed.isEmpty { return }
            if truncated { problems.add(path: path, line: number, reason: "line longer than \(LineSource.lineBytesMax) bytes", text: line); return }
            if let reason = scanner.scan(trimmed) { problems.add(path: path, line: number, reason: reason, text: line); return }
            func value(_ k: Int) -> UnsafeBufferPointer<UInt8>? {
                guard let r = scanner.ranges[k] else { return nil }
                let v = trimmed.slice(r.range)
                return !r.isString && FieldParsing.equalsLowercase(v, "null") ? nil : v
            }
            guard let startText = value(0), let start = Timestamp.parse(startText) else {
                problems.add(path: path, line: number, reason: "EdgeStartTimestamp: expected RFC 3339 or unix seconds/nanoseconds", text: line)
                return
            }
            var record = EdgeRecord(timeSeconds: start, pop: value(5).map { FieldParsing.string($0).uppercased() } ?? "", cache: .other)
            if let t = value(2) {
                guard let ms = FieldParsing.double(t), ms >= 0 else {
                    problems.add(path: path, line: number, reason: "EdgeTimeToFirstByteMs: expected milliseconds >= 0", text: line)
                    return
                }
                record.firstByteSeconds = ms / 1000
            }
            if let e = value(1), let end = Timestamp.parse(e), end >= start { record.totalSeconds = end - start }
            if let o = value(3), let ms = FieldParsing.double(o), ms > 0 { record.originSeconds = ms / 1000 }
            record.bytes = value(6).flatMap(FieldParsing.double)
            record.status = value(7).flatMap(FieldParsing.integer)
            record.originStatus = value(8).flatMap(FieldParsing.integer).flatMap { $0 == 0 ? nil : $0 }
            if let c = value(4) {
                if FieldParsing.equalsLowercase(c, "hit") || FieldParsing.equalsLowercase(c, "stale")
                    || FieldParsing.equalsLowercase(c, "updating") || FieldParsing.equalsLowercase(c, "revalidated") {
                    record.cache = .hit
                } else if FieldParsing.equalsLowercase(c, "miss") || FieldParsing.equalsLowercase(c, "expired") {
                    record.cache = .miss
                }
            }
            if record.cache == .other, let s = record.status, s >= 500, record.originSeconds == nil { record.cache = .error }
            emit(record)
        }
        if let note { problems.fileNotes.append("\(path): \(note)") }
    }
}
