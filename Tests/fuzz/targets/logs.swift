// Fuzz target `logs`: LogFit's log readers over an arbitrary file (written to a scratch file, since
// LineSource reads through zlib's gzread: plain and gzip input alike): CloudFront (W3C, tab
// separated), Cloudflare Logpush (NDJSON, through FlatJSONScanner), a CDN CSV through a column
// mapping, and push-analytics CSV; every record is then added to the accumulators `prestage fit`
// uses. Each input goes to the reader its first line looks like (`{`: Cloudflare; `#` or a tab:
// CloudFront; a header naming `sent`: push analytics; otherwise the CDN CSV; gzip: all four), so
// one input costs one LineSource (each allocates and zeroes a 256 KiB chunk).
// Properties: no crash, no unbounded memory; a record's time is finite; durations are never NaN
// nor negative, byte counts never NaN, push times finite; problems are counted at most once per line read.
import Foundation
@testable import LogFit

let scratchPath = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/prestage-fuzz-logs-\(getpid())"
let csvMapping = try! CSVMapping(parsing: ["time=timestamp,pop=pop,cache=cache_status", "ttfb=ttfb_ms:ms,total=elapsed_ms:ms,bytes=resp_bytes,status=status"])

func checkEdge(_ r: EdgeRecord, _ reader: String) {
    require(r.timeSeconds.isFinite, "\(reader): time \(r.timeSeconds)")
    // The readers refuse negative durations (a problem line); a byte count is not checked by
    // them (EdgeAccumulator uses only positive ones), so it need only be a number.
    for (name, v) in [("firstByte", r.firstByteSeconds), ("total", r.totalSeconds), ("origin", r.originSeconds)] {
        if let v { require(!v.isNaN && v >= 0, "\(reader): \(name) \(v)") }
    }
    if let b = r.bytes { require(!b.isNaN, "\(reader): bytes \(b)") }
}

func checkPush(_ r: PushRecord) {
    require(r.sentSeconds.isFinite, "pushes: sent \(r.sentSeconds)")
    for v in [r.deliveredSeconds, r.openedSeconds] { if let v { require(v.isFinite, "pushes: time \(v)") } }
    require(["ios", "android", "other"].contains(r.platform), "pushes: platform \(r.platform)")
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzLogs(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // Plain POSIX writes: FileManager.createFile writes atomically (a temporary file and a rename).
    let fd = open(scratchPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    require(fd >= 0 && (size == 0 || write(fd, data, size) == size), "cannot write \(scratchPath)")
    close(fd)
    defer { unlink(scratchPath) }
    var edge = EdgeAccumulator(timeoutSeconds: 10)
    var pushes = PushAccumulator()
    let readers: [(String, (LineSource, inout ReadProblems) throws(LogFitError) -> Void)] = [
        ("cloudfront", { s, p throws(LogFitError) in try CloudFrontReader.read(s, problems: &p) { checkEdge($0, "cloudfront"); edge.add($0) } }),
        ("cloudflare", { s, p in CloudflareReader.read(s, problems: &p) { checkEdge($0, "cloudflare"); edge.add($0) } }),
        ("csv", { s, p throws(LogFitError) in try CSVReader.readEdge(s, mapping: csvMapping, problems: &p) { checkEdge($0, "csv"); edge.add($0) } }),
        ("pushes", { s, p throws(LogFitError) in try CSVReader.readPushes(s, problems: &p) { checkPush($0); pushes.add($0) } }),
    ]
    let firstLine = UnsafeBufferPointer(start: data, count: size).prefix { $0 != 10 }
    let chosen: [Int]
    if size >= 2 && data[0] == 0x1F && data[1] == 0x8B { chosen = [0, 1, 2, 3] }
    else if size > 0 && data.pointee == UInt8(ascii: "{") { chosen = [1] }
    else if size > 0 && (data.pointee == UInt8(ascii: "#") || firstLine.contains(9)) { chosen = [0] }
    else if String(decoding: firstLine, as: UTF8.self).contains("sent") { chosen = [3] }
    else { chosen = [2] }
    for (name, read) in chosen.map({ readers[$0] }) {
        guard let source = try? LineSource(path: scratchPath) else { require(false, "cannot open \(scratchPath)"); return 0 }
        var problems = ReadProblems()
        do { try read(source, &problems) } catch { require(!error.description.isEmpty, "\(name): empty error") }
        require(problems.count <= source.linesRead, "\(name): \(problems.count) problems in \(source.linesRead) lines")
        require(problems.quoted.count <= ReadProblems.quotedMax, "\(name): \(problems.quoted.count) quoted problems")
    }
    return 0
}
