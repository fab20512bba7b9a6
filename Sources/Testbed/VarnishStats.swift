import Foundation

/// Counters of one Varnish instance (`varnishstat -1`), and differences between two readings.
package struct VarnishCounters: Sendable, Equatable {
    package var hits: UInt64 = 0
    package var misses: UInt64 = 0
    /// Requests that waited on the waiting list for an object being fetched (collapsed): Varnish
    /// counts them as hits when they wake, InfraModel counts them as misses.
    package var collapsed: UInt64 = 0
    package var hitForMiss: UInt64 = 0
    package var hitForPass: UInt64 = 0
    package var graceHits: UInt64 = 0
    package var bodyBytes: UInt64 = 0
    package var clientRequests: UInt64 = 0
    package var backendRequests: UInt64 = 0

    package static let fields = ["MAIN.cache_hit", "MAIN.cache_miss", "MAIN.busy_sleep", "MAIN.cache_hitmiss", "MAIN.cache_hitpass",
                                "MAIN.cache_hit_grace", "MAIN.s_resp_bodybytes", "MAIN.client_req", "MAIN.backend_req"]

    package init() {}

    /// Lookups as InfraModel counts them: hits (fresh and stale) + misses (collapsed included).
    package var lookups: UInt64 { hits + misses + hitForMiss + hitForPass }
    /// Hits InfraModel would count: Varnish hits less the collapsed requests it counts as hits.
    package var modelHits: UInt64 { hits > collapsed ? hits - collapsed : 0 }
    package var hitRatio: Double? { lookups == 0 ? nil : Double(modelHits) / Double(lookups) }

    /// Parses `varnishstat -1` output (`NAME VALUE RATE DESCRIPTION` per line).
    package static func parse(_ text: String) -> VarnishCounters {
        var c = VarnishCounters()
        for line in text.split(separator: "\n") {
            let cols = line.split(separator: " ", omittingEmptySubsequences: true)
            guard cols.count >= 2, let v = UInt64(cols[1]) else { continue }
            switch cols[0] {
            case "MAIN.cache_hit": c.hits = v
            case "MAIN.cache_miss": c.misses = v
            case "MAIN.busy_sleep": c.collapsed = v
            case "MAIN.cache_hitmiss": c.hitForMiss = v
            case "MAIN.cache_hitpass": c.hitForPass = v
            case "MAIN.cache_hit_grace": c.graceHits = v
            case "MAIN.s_resp_bodybytes": c.bodyBytes = v
            case "MAIN.client_req": c.clientRequests = v
            case "MAIN.backend_req": c.backendRequests = v
            default: continue
            }
        }
        return c
    }

    /// `self - earlier`, field by field (a counter never decreases).
    package func since(_ earlier: VarnishCounters) -> VarnishCounters {
        func d(_ a: UInt64, _ b: UInt64) -> UInt64 { a > b ? a - b : 0 }
        var c = VarnishCounters()
        c.hits = d(hits, earlier.hits)
        c.misses = d(misses, earlier.misses)
        c.collapsed = d(collapsed, earlier.collapsed)
        c.hitForMiss = d(hitForMiss, earlier.hitForMiss)
        c.hitForPass = d(hitForPass, earlier.hitForPass)
        c.graceHits = d(graceHits, earlier.graceHits)
        c.bodyBytes = d(bodyBytes, earlier.bodyBytes)
        c.clientRequests = d(clientRequests, earlier.clientRequests)
        c.backendRequests = d(backendRequests, earlier.backendRequests)
        return c
    }

    package static func + (a: VarnishCounters, b: VarnishCounters) -> VarnishCounters {
        var c = a
        c.hits += b.hits; c.misses += b.misses; c.collapsed += b.collapsed; c.hitForMiss += b.hitForMiss
        c.hitForPass += b.hitForPass; c.graceHits += b.graceHits; c.bodyBytes += b.bodyBytes
        c.clientRequests += b.clientRequests; c.backendRequests += b.backendRequests
        return c
    }

    /// Reads the counters of the instance in `directory` (nil when varnishstat fails).
    package static func read(directory: URL) -> VarnishCounters? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/varnishstat")
        p.arguments = ["-n", directory.path, "-1"] + fields.flatMap { ["-f", $0] }
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { return nil }
        return parse(String(decoding: data, as: UTF8.self))
    }
}
