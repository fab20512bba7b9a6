/// Amazon CloudFront standard access logs (W3C extended format): tab-separated, `#Version:` and
/// `#Fields:` header lines, `-` for an empty value, `date`/`time` in UTC.
///
/// Fields read: `date`, `time`, `x-edge-location` (its letters before the first digit are the PoP:
/// `FRA56-C1` → `FRA`), `sc-bytes`, `sc-status`, `x-edge-result-type` (Hit, RefreshHit → hit;
/// Miss → miss; Error → error; others → other), `time-taken` and `time-to-first-byte` (seconds).
/// Without a `#Fields:` line the documented standard field order is assumed.
package enum CloudFrontReader {
    /// CloudFront's standard field order (as documented for standard logging).
    package static let standardFields = [
        "date", "time", "x-edge-location", "sc-bytes", "c-ip", "cs-method", "cs(Host)", "cs-uri-stem", "sc-status",
        "cs(Referer)", "cs(User-Agent)", "cs-uri-query", "cs(Cookie)", "x-edge-result-type", "x-edge-request-id",
        "x-host-header", "cs-protocol", "cs-bytes", "time-taken", "x-forwarded-for", "ssl-protocol", "ssl-cipher",
        "x-edge-response-result-type", "cs-protocol-version", "fle-status", "fle-encrypted-fields", "c-port",
        "time-to-first-byte", "x-edge-detailed-result-type", "sc-content-type", "sc-content-len", "sc-range-start",
        "sc-range-end",
    ]

    struct Columns {
        var date = -1, time = -1, location = -1, bytes = -1, status = -1, result = -1, taken = -1, firstByte = -1

        init(_ names: [String]) {
            for (i, n) in names.enumerated() {
                switch n {
                case "date": date = i
                case "time": time = i
                case "x-edge-location": location = i
                case "sc-bytes": bytes = i
                case "sc-status": status = i
                case "x-edge-result-type": result = i
                case "time-taken": taken = i
                case "time-to-first-byte": firstByte = i
                default: break
                }
            }
        }

        var missing: [String] {
            [("date", date), ("time", time), ("x-edge-result-type", result), ("time-taken", taken)].filter { $0.1 < 0 }.map(\.0)
        }
        var needed: Int { [date, time, location, bytes, status, result, taken, firstByte].max() ?? 0 }
    }

    /// Reads `path`, calling `emit` per usable request.
    /// - Throws: `LogFitError.badFormat` when the `#Fields:` line lacks a required field.
    package static func read(_ source: LineSource, problems: inout ReadProblems, emit: (EdgeRecord) -> Void) throws(LogFitError) {
        var columns = Columns(standardFields)
        var ranges: [Range<Int>] = []
        var headerError: LogFitError?
        let path = source.path
        let note = source.forEachLine { line, number, truncated in
            guard headerError == nil else { return }
            if line.first == 35 {  // '#'
                let text = FieldParsing.string(line)
                if text.hasPrefix("#Fields:") {
                    let names = text.dropFirst("#Fields:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                    columns = Columns(names)
                    if !columns.missing.isEmpty {
                        headerError = .badFormat(path: path, reason: "line \(number): #Fields: lacks \(columns.missing.joined(separator: ", ")); expected CloudFront's standard log fields")
                    }
                }
                return
            }
            if line.isEmpty { return }
            if truncated { problems.add(path: path, line: number, reason: "line longer than \(LineSource.lineBytesMax) bytes", text: line); return }
            FieldParsing.split(line, separator: 9, into: &ranges)
            guard ranges.count > columns.needed else {
                problems.add(path: path, line: number, reason: "expected at least \(columns.needed + 1) tab-separated fields, found \(ranges.count)", text: line)
                return
            }
            func field(_ i: Int) -> UnsafeBufferPointer<UInt8>? {
                guard i >= 0 else { return nil }
                let f = line.slice(ranges[i])
                return f.count == 1 && f[0] == 45 ? nil : f
            }
            guard let date = field(columns.date), let time = field(columns.time), let t = Timestamp.dateAndTime(date, time) else {
                problems.add(path: path, line: number, reason: "date/time: expected YYYY-MM-DD and HH:MM:SS", text: line)
                return
            }
            guard let takenText = field(columns.taken), let taken = FieldParsing.double(takenText), taken >= 0 else {
                problems.add(path: path, line: number, reason: "time-taken: expected seconds >= 0", text: line)
                return
            }
            var record = EdgeRecord(timeSeconds: t, pop: field(columns.location).map(popCode) ?? "", cache: .other, totalSeconds: taken)
            if let f = field(columns.firstByte) {
                guard let v = FieldParsing.double(f), v >= 0 else {
                    problems.add(path: path, line: number, reason: "time-to-first-byte: expected seconds >= 0", text: line)
                    return
                }
                record.firstByteSeconds = v
            }
            record.bytes = field(columns.bytes).flatMap(FieldParsing.double)
            record.status = field(columns.status).flatMap(FieldParsing.integer)
            if let r = field(columns.result) {
                if FieldParsing.equalsLowercase(r, "hit") || FieldParsing.equalsLowercase(r, "refreshhit") {
                    record.cache = .hit
                } else if FieldParsing.equalsLowercase(r, "miss") {
                    record.cache = .miss
                } else if FieldParsing.equalsLowercase(r, "error") {
                    record.cache = .error
                }
            }
            emit(record)
        }
        if let headerError { throw headerError }
        if let note { problems.fileNotes.append("\(path): \(note)") }
    }

    /// `FRA56-C1` → `FRA`: the leading letters of an edge location.
    static func popCode(_ b: UnsafeBufferPointer<UInt8>) -> String {
        var n = 0
        while n < b.count, (b[n] >= 65 && b[n] <= 90) || (b[n] >= 97 && b[n] <= 122) { n += 1 }
        return FieldParsing.string(b.slice(0..<(n == 0 ? b.count : n))).uppercased()
    }
}
