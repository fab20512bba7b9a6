/// Comma-separated logs with a header row: a generic CDN export (Fastly, Akamai, custom) read through
/// a column mapping, and push analytics.
package enum CSVReader {
    /// Splits a CSV line into field ranges; a quoted field's range excludes its quotes (a doubled
    /// quote inside stays doubled). Returns false for an unterminated quote.
    static func split(_ b: UnsafeBufferPointer<UInt8>, into ranges: inout [Range<Int>]) -> Bool {
        ranges.removeAll(keepingCapacity: true)
        var i = 0
        while true {
            if i < b.count, b[i] == 34 {
                var j = i + 1
                while true {
                    guard j < b.count else { return false }
                    if b[j] == 34 {
                        if j + 1 < b.count, b[j + 1] == 34 { j += 2; continue }
                        break
                    }
                    j += 1
                }
                ranges.append((i + 1)..<j)
                i = j + 1
                guard i >= b.count || b[i] == 44 else { return false }
            } else {
                var j = i
                while j < b.count, b[j] != 44 { j += 1 }
                ranges.append(i..<j)
                i = j
            }
            if i >= b.count { return true }
            i += 1  // the comma
        }
    }

    /// The header's column names (trimmed, case kept).
    static func header(_ line: UnsafeBufferPointer<UInt8>) -> [String]? {
        var ranges: [Range<Int>] = []
        guard split(line, into: &ranges) else { return nil }
        return ranges.map { FieldParsing.string(line.slice($0).trimmed()) }
    }

    /// Reads a generic CDN CSV through `mapping`.
    /// - Throws: `LogFitError.badFormat` when the header lacks a mapped column.
    package static func readEdge(_ source: LineSource, mapping: CSVMapping, problems: inout ReadProblems,
                                emit: (EdgeRecord) -> Void) throws(LogFitError) {
        var index: [CSVMapping.Field: Int] = [:]
        var ranges: [Range<Int>] = []
        var failure: LogFitError?
        let path = source.path
        let note = source.forEachLine { line, number, truncated in
            guard failure == nil, !line.trimmed().isEmpty else { return }
            if index.isEmpty {
                guard let names = header(line) else { failure = .badFormat(path: path, reason: "line \(number): expected a CSV header row"); return }
                switch Result(catching: { () throws(LogFitError) in try mapping.columnIndices(names, path: path) }) {
                case let .success(found): index = found
                case let .failure(error): failure = error
                }
                return
            }
            if truncated { problems.add(path: path, line: number, reason: "line longer than \(LineSource.lineBytesMax) bytes", text: line); return }
            guard split(line, into: &ranges) else { problems.add(path: path, line: number, reason: "unterminated quote", text: line); return }
            func cell(_ f: CSVMapping.Field) -> UnsafeBufferPointer<UInt8>? {
                guard let i = index[f] else { return nil }
                guard i < ranges.count else { return nil }
                let v = line.slice(ranges[i]).trimmed()
                return v.isEmpty || (v.count == 1 && v[0] == 45) ? nil : v
            }
            func seconds(_ f: CSVMapping.Field) -> Double?? {
                guard let c = cell(f) else { return .some(nil) }
                guard let v = FieldParsing.double(c), v >= 0 else { return nil }
                return v * mapping.scale(f)
            }
            guard let tc = cell(.time), let t = Timestamp.parse(tc) else {
                problems.add(path: path, line: number, reason: "\(mapping.column(.time)): expected an ISO 8601 time or epoch number", text: line)
                return
            }
            var record = EdgeRecord(timeSeconds: t, pop: cell(.pop).map { FieldParsing.string($0).uppercased() } ?? "", cache: .other)
            for (field, keyPath) in [(CSVMapping.Field.ttfb, \EdgeRecord.firstByteSeconds), (.total, \.totalSeconds), (.origin, \.originSeconds)] {
                guard let v = seconds(field) else {
                    problems.add(path: path, line: number, reason: "\(mapping.column(field)): expected a number >= 0", text: line)
                    return
                }
                record[keyPath: keyPath] = v
            }
            record.bytes = cell(.bytes).flatMap(FieldParsing.double)
            record.status = cell(.status).flatMap(FieldParsing.integer)
            record.cache = cell(.cache).map(cacheResult) ?? .other
            if record.originSeconds == 0 { record.originSeconds = nil }
            emit(record)
        }
        if let failure { throw failure }
        if let note { problems.fileNotes.append("\(path): \(note)") }
    }

    /// Fastly (`HIT`, `MISS`, `PASS`, `HIT-STALE`), Akamai (`1` cached / `0` not) and the CloudFront
    /// and Cloudflare spellings.
    static func cacheResult(_ b: UnsafeBufferPointer<UInt8>) -> CacheResult {
        let s = FieldParsing.string(b).lowercased()
        if s == "1" || s.hasPrefix("hit") || s.hasSuffix("hit") || s == "stale" || s == "updating" || s == "revalidated" { return .hit }
        if s == "0" || s.hasPrefix("miss") || s == "expired" { return .miss }
        if s.hasPrefix("error") { return .error }
        return .other
    }

    /// Push analytics: a header naming `sent_at`, `delivered_at`, `opened_at`, `platform` and
    /// optionally `network` (any order, other columns ignored); times ISO 8601 with a zone or epoch
    /// numbers; empty `delivered_at`/`opened_at` = not (yet) delivered/opened.
    package static func readPushes(_ source: LineSource, problems: inout ReadProblems, emit: (PushRecord) -> Void) throws(LogFitError) {
        var columns: [Int] = []
        var ranges: [Range<Int>] = []
        var failure: LogFitError?
        let path = source.path
        let required = ["sent_at", "delivered_at", "opened_at", "platform"]
        let note = source.forEachLine { line, number, truncated in
            guard failure == nil, !line.trimmed().isEmpty else { return }
            if columns.isEmpty {
                guard let names = header(line)?.map({ $0.lowercased() }) else {
                    failure = .badFormat(path: path, reason: "line \(number): expected a CSV header row"); return
                }
                let missing = required.filter { !names.contains($0) }
                guard missing.isEmpty else {
                    failure = .badFormat(path: path, reason: "line \(number): the header lacks \(missing.joined(separator: ", ")); expected sent_at, delivered_at, opened_at, platform[, network]")
                    return
                }
                columns = (required + ["network"]).map { names.firstIndex(of: $0) ?? -1 }
                return
            }
            if truncated { problems.add(path: path, line: number, reason: "line longer than \(LineSource.lineBytesMax) bytes", text: line); return }
            guard split(line, into: &ranges) else { problems.add(path: path, line: number, reason: "unterminated quote", text: line); return }
            func cell(_ k: Int) -> UnsafeBufferPointer<UInt8>? {
                let i = columns[k]
                guard i >= 0, i < ranges.count else { return nil }
                let v = line.slice(ranges[i]).trimmed()
                return v.isEmpty ? nil : v
            }
            guard let s = cell(0), let sent = Timestamp.parse(s) else {
                problems.add(path: path, line: number, reason: "sent_at: expected an ISO 8601 time with zone or an epoch number", text: line)
                return
            }
            var times: [Double?] = [nil, nil]
            for (slot, k) in [(0, 1), (1, 2)] {
                guard let c = cell(k) else { continue }
                guard let v = Timestamp.parse(c) else {
                    problems.add(path: path, line: number, reason: "\(required[k]): expected an ISO 8601 time with zone, an epoch number or empty", text: line)
                    return
                }
                times[slot] = v
            }
            if times[1] != nil, times[0] == nil {
                problems.add(path: path, line: number, reason: "opened_at without delivered_at", text: line)
                return
            }
            if let d = times[0], d < sent {
                problems.add(path: path, line: number, reason: "delivered_at is before sent_at", text: line)
                return
            }
            if let o = times[1], let d = times[0], o < d {
                problems.add(path: path, line: number, reason: "opened_at is before delivered_at", text: line)
                return
            }
            let platform = cell(3).map { PushRecord.platform(FieldParsing.string($0)) } ?? "other"
            emit(PushRecord(sentSeconds: sent, deliveredSeconds: times[0], openedSeconds: times[1], platform: platform,
                            network: cell(4).flatMap { PushRecord.network(FieldParsing.string($0)) }))
        }
        if let failure { throw failure }
        if let note { problems.fileNotes.append("\(path): \(note)") }
    }
}

/// Which CSV column holds which field, and its unit: `--map ttfb=TTFB_ms:ms,cache=CacheStatus,...`.
package struct CSVMapping: Sendable, Equatable {
    /// The fields of an `EdgeRecord` a column can fill.
    package enum Field: String, Sendable, CaseIterable {
        case time, pop, cache, ttfb, total, origin, bytes, status
    }

    /// Column name and seconds per unit, per field.
    package private(set) var columns: [Field: (name: String, secondsPerUnit: Double)] = [:]

    package static func == (a: CSVMapping, b: CSVMapping) -> Bool {
        a.columns.keys.sorted { $0.rawValue < $1.rawValue } == b.columns.keys.sorted { $0.rawValue < $1.rawValue }
            && Field.allCases.allSatisfy { a.columns[$0]?.name == b.columns[$0]?.name && a.columns[$0]?.secondsPerUnit == b.columns[$0]?.secondsPerUnit }
    }

    /// Parses `field=column[:unit]` items (comma-separated, any number of strings); units `s`,
    /// `ms`, `us` for the durations. `time` and `cache` are required.
    /// - Throws: `LogFitError.badOption` naming the item and what was expected.
    package init(parsing items: [String]) throws(LogFitError) {
        let fieldNames = Field.allCases.map(\.rawValue).joined(separator: ", ")
        for item in items.flatMap({ $0.split(separator: ",") }) {
            let parts = item.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let field = Field(rawValue: String(parts[0]).trimmingSpaces) else {
                throw .badOption("--map \(item): expected FIELD=COLUMN[:UNIT] with FIELD one of \(fieldNames)")
            }
            var column = String(parts[1])
            var scale = 1.0
            if let colon = column.lastIndex(of: ":") {
                let unit = String(column[column.index(after: colon)...])
                switch unit {
                case "s": scale = 1
                case "ms": scale = 1e-3
                case "us": scale = 1e-6
                default: throw .badOption("--map \(item): unit \"\(unit)\": expected s, ms or us")
                }
                column = String(column[..<colon])
            }
            guard !column.isEmpty else { throw .badOption("--map \(item): expected a column name after '='") }
            columns[field] = (column, scale)
        }
        for f in [Field.time, .cache] where columns[f] == nil {
            throw .badOption("--map: the \(f.rawValue) column is required (e.g. --map time=timestamp,cache=cache_status,ttfb=ttfb_ms:ms)")
        }
    }

    func column(_ f: Field) -> String { columns[f]?.name ?? f.rawValue }
    func scale(_ f: Field) -> Double { columns[f]?.secondsPerUnit ?? 1 }

    func columnIndices(_ header: [String], path: String) throws(LogFitError) -> [Field: Int] {
        var out: [Field: Int] = [:]
        for f in Field.allCases {
            guard let c = columns[f] else { continue }
            guard let i = header.firstIndex(of: c.name) else {
                throw .badFormat(path: path, reason: "the header has no column \"\(c.name)\" (mapped to \(f.rawValue)); columns: \(header.joined(separator: ", "))")
            }
            out[f] = i
        }
        return out
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
