import Foundation
import PushModel
import SimStats

/// Two-sample Kolmogorov–Smirnov test between the testbed's samples and the model's histogram.
package struct KSResult: Sendable, Equatable {
    /// sup |F_testbed − F_model| over every sample value and histogram bucket.
    package var statistic: Double
    /// Rejection threshold c(α)·√((n+m)/(n·m)), c(α) = √(−ln(α/2)/2) (asymptotic two-sided).
    package var critical: Double
    package var alpha: Double
    package var testbedCount: Int
    package var modelCount: Int
    package var agrees: Bool { statistic <= critical }
}

package enum KolmogorovSmirnov {
    /// The significance level of every KS verdict in the comparison.
    package static let alpha = 0.01

    package static func critical(alpha: Double, n: Int, m: Int) -> Double {
        sqrt(-log(alpha / 2) / 2) * sqrt(Double(n + m) / Double(n * m))
    }

    /// D between `samples` (seconds) and `model`, whose values are taken at their bucket
    /// midpoints (a relative error of at most 1/2048: far below D's resolution here). Nil when
    /// either side is empty.
    package static func test(samples: [Double], model: LatencyHistogram, alpha: Double = KolmogorovSmirnov.alpha) -> KSResult? {
        let buckets = model.nonEmptyBuckets
        let m = buckets.reduce(UInt64(0)) { $0 + $1.count }
        guard !samples.isEmpty, m > 0 else { return nil }
        let n = samples.count
        var points: [(x: Double, a: Double, b: Double)] = samples.map { ($0, 1 / Double(n), 0) }
        for bucket in buckets {
            let mid = (Double(bucket.lowerBoundMicroseconds) + Double(bucket.widthMicroseconds - 1) / 2) / 1e6
            points.append((mid, 0, Double(bucket.count) / Double(m)))
        }
        points.sort { $0.x < $1.x }
        var fa = 0.0, fb = 0.0, d = 0.0
        var i = 0
        while i < points.count {
            let x = points[i].x
            while i < points.count && points[i].x == x {
                fa += points[i].a
                fb += points[i].b
                i += 1
            }
            d = max(d, abs(fa - fb))
        }
        return KSResult(statistic: d, critical: critical(alpha: alpha, n: n, m: Int(m)), alpha: alpha, testbedCount: n, modelCount: Int(m))
    }
}

/// One compared quantity: both values, the tolerance it was judged by and the verdict.
package struct ComparisonRow: Sendable, Equatable {
    package var metric: String
    package var unit: String
    package var testbed: Double?
    package var model: Double?
    /// The largest |testbed − model| accepted (nil: a KS row, judged by `ks`).
    package var tolerance: Double?
    package var toleranceRule: String
    package var ks: KSResult?
    /// Nil when a side has no data.
    package var agrees: Bool?
    /// Why they may differ (shown when they do not agree).
    package var explanation: String

    /// "agrees", "DIFFERS", "not judged" (both sides measured, the machine too busy for a
    /// latency verdict) or "no data".
    package var verdict: String {
        if let agrees { return agrees ? "agrees" : "DIFFERS" }
        return testbed != nil && model != nil ? "not judged" : "no data"
    }
}

/// The comparison of one testbed run with the model's replications of the same scaled scenario.
package struct TestbedComparison: Sendable {
    package var rows: [ComparisonRow]
    package var testbedDownloads: [Double]
    package var testbedTapToPaint: [Double]
    package var modelDownloads: LatencyHistogram?
    package var modelTapToPaint: LatencyHistogram?

    /// Latencies are judged only when the testbed's threads got the CPU when they needed it: a
    /// median CPU stretch (``SchedulingProbe``) above this means they waited for a core (other
    /// jobs on the machine, or a low priority), and real-clock latencies then measure the
    /// scheduler rather than the scenario.
    package static let cpuStretchLimit = 1.5
    /// False when latencies were not judged (see ``cpuStretchLimit``).
    package var latenciesJudged: Bool

    /// Every row with data agrees.
    package var allAgree: Bool { rows.allSatisfy { $0.agrees != false } }
    package func row(_ metric: String) -> ComparisonRow? { rows.first { $0.metric == metric } }

    package init(testbed t: TestbedMeasurement, model: [ReplicationResult]) {
        let records = t.records
        latenciesJudged = t.cpuStretch <= Self.cpuStretchLimit
        let judged = latenciesJudged
        let lagNote = String(format: "not judged: the CPU was busy (stretch %.1f > %.1f; load %.1f on %d cores)",
                             t.cpuStretch, Self.cpuStretchLimit, t.loadAverage, t.processors)
        // The testbed's own per-download overhead (calibration devices) is not in the model.
        let overhead = t.overheadSeconds ?? 0
        let downloads = records.flatMap(\.downloadSeconds).map { max(0, $0 - overhead) }.sorted()
        let paints = records.compactMap(\.tapToPaintSeconds).sorted()
        testbedDownloads = downloads
        testbedTapToPaint = paints
        modelDownloads = Self.merged(model.map(\.extensionDownloadLatency))
        modelTapToPaint = Self.merged(model.map(\.tapToPaint))
        func mean(_ f: (ReplicationResult) -> Double?) -> Double? {
            let v = model.compactMap(f)
            return v.isEmpty ? nil : v.reduce(0, +) / Double(v.count)
        }
        var rows: [ComparisonRow] = []

        // Ratios: |Δ| ≤ 0.05 + 2·√(p(1−p)/n) (n: the testbed's count behind the ratio).
        func ratioRow(_ metric: String, _ tb: Double?, _ n: UInt64, _ md: Double?, _ why: String) {
            var tol: Double?
            if let p = md ?? tb, n > 0 { tol = 0.05 + 2 * sqrt(max(p * (1 - p), 0) / Double(n)) }
            rows.append(Self.row(metric, "ratio", tb, md, tol, "0.05 + 2·√(p(1−p)/n), n = \(n)", why))
        }
        ratioRow("edge hit ratio (device requests)", t.edge.hitRatio, t.edge.lookups,
                 mean { r in r.tier(.edge).flatMap { $0.deviceRequests == 0 ? nil : Double($0.deviceHits) / Double($0.deviceRequests) } },
                 "Varnish counts a request that waited for an in-flight fetch as a hit; the testbed subtracts `busy_sleep` (one per wait), which overcounts a request that slept twice. Revalidations and foreground fetches also reach the edge in both runs.")
        ratioRow("shield hit ratio (all requests)", t.shield.hitRatio, t.shield.lookups,
                 mean { r in r.tier(.shield).flatMap { $0.requests == 0 ? nil : Double($0.freshHits + $0.staleHits) / Double($0.requests) } },
                 "With few shield requests (one miss per object per edge after a warm call) a single extra request moves the ratio a lot.")
        let started = records.reduce(0) { $0 + $1.fetchesStarted }
        let timedOut = records.reduce(0) { $0 + $1.fetchesTimedOut }
        ratioRow("pre-stage request time-out share", started == 0 ? nil : Double(timedOut) / Double(started), UInt64(started),
                 mean { $0.metric("extension.fetchTimeoutShare") },
                 "Time-outs sit in the tail of the slowest network classes; a handful of devices decide it.")
        let handled = records.filter { $0.outcome != "notRun" && $0.outcome != "rejected" }.count
        let completed = records.filter { $0.outcome == "completed" }.count
        ratioRow("pushes completed (every critical asset ready at delivery)", handled == 0 ? nil : Double(completed) / Double(handled),
                 UInt64(handled), mean { $0.metric("outcomes.completedShare") },
                 "The model also counts pushes cut by the horizon; the testbed's devices all run to the end.")

        // Distributions: KS at α, and p50/p95 within 25 % + 20 ms.
        func distribution(_ name: String, _ samples: [Double], _ hist: LatencyHistogram?, _ why: String) {
            let ks = hist.flatMap { KolmogorovSmirnov.test(samples: samples, model: $0) }
            rows.append(ComparisonRow(metric: name + " (KS)", unit: "D", testbed: ks?.statistic, model: ks?.critical, tolerance: nil,
                                      toleranceRule: judged ? "two-sample KS, α = \(KolmogorovSmirnov.alpha); model column: critical D" : lagNote,
                                      ks: ks, agrees: judged ? ks?.agrees : nil, explanation: why))
            for q in [0.50, 0.95] {
                let tb = Self.quantile(samples, q)
                let md = hist.flatMap { $0.quantile(q).microseconds }.map { $0 / 1e6 }
                var row = Self.row("\(name) p\(Int(q * 100))", "s", tb, md, nil, "", why)
                if let md, let (lo, hi) = Self.quantileInterval(samples, q) {
                    let slack = Self.quantileSlackShare * md + Self.quantileSlackSeconds
                    row.agrees = md >= lo - slack && md <= hi + slack
                    let upper = hi.isFinite ? String(format: "%.3f", hi) : "∞"
                    row.toleranceRule = String(format: "model in the testbed's 99 %% interval [%.3f, %@] s ± %.3f s", lo, upper, slack)
                }
                if !judged {
                    row.agrees = nil
                    row.toleranceRule = lagNote
                }
                rows.append(row)
            }
        }
        distribution("extension download latency", downloads, modelDownloads,
                     "The testbed's median overhead per download (calibration devices) is subtracted, but overhead varies with load and asset size; the shaper works in 10 ms slices; the model draws RTT, rate and segment losses per request, the shaper per connection.")
        distribution("tap-to-paint", paints, modelTapToPaint,
                     "Few taps fall inside a short run, so the tail rests on a handful of foreground fetches; the testbed's device waits for a running session to end before fetching what is missing (the model paints on the session's `paintReady`); with segment loss, each lost segment of a foreground fetch adds a whole RTO to that tail.")

        // Counts: |Δ| ≤ max(3, 25 % of the model + 2·√model).
        func countRow(_ metric: String, _ unit: String, _ tb: Double, _ md: Double?, _ why: String) {
            let tol = md.map { max(3, 0.25 * $0 + 2 * sqrt($0)) }
            rows.append(Self.row(metric, unit, tb, md, tol, "max(3, 25 % of the model + 2·√model)", why))
        }
        countRow("origin requests", "count", Double(t.origin.requests), mean { r in r.tier(.origin).map { Double($0.requests) } },
                 "Varnish revalidates a stale object in the background and the warm call fetches each object once per warmed node in both; a difference of a few requests is a warm call racing the first device misses.")
        countRow("origin 503s", "count", Double(t.origin.rejected503), mean { r in r.tier(.origin).map { Double($0.rejected503) } },
                 "The real origin admits by thread timing; near saturation a few requests more or fewer find the queue full.")
        countRow("taps that painted", "count", Double(paints.count), mean { $0.metric("tapToPaint.count") },
                 "Tap draws differ between the runs (the testbed draws its own users from the same distributions).")

        // Bytes: within 10 % of the model.
        func bytesRow(_ metric: String, _ tb: Double, _ md: Double?, _ why: String) {
            rows.append(Self.row(metric, "bytes", tb, md, md.map { 0.10 * $0 }, "10 % of the model", why))
        }
        bytesRow("pre-stage bytes received by devices", Double(records.reduce(Int64(0)) { $0 + $1.backgroundBytes }),
                 mean { Double($0.bytes.backgroundBytes) },
                 "Each device fetches the variant for its class; the class mix is drawn separately in each run.")
        bytesRow("CDN egress to devices (edge body bytes)", Double(t.edge.bodyBytes), mean { Double($0.bytes.cdnEgressBytes) },
                 "Edge body bytes include foreground fetches after taps and exclude the warm call in both runs.")
        self.rows = rows
    }

    static func row(_ metric: String, _ unit: String, _ tb: Double?, _ md: Double?, _ tol: Double?, _ rule: String,
                    _ why: String) -> ComparisonRow {
        var agrees: Bool?
        if let tb, let md, let tol { agrees = abs(tb - md) <= tol }
        return ComparisonRow(metric: metric, unit: unit, testbed: tb, model: md, tolerance: tol, toleranceRule: rule, ks: nil,
                             agrees: agrees, explanation: why)
    }

    /// Systematic allowance around a quantile's interval: 10 % of the model's value + 20 ms (real
    /// process scheduling on a shared machine; the shaper's 10 ms slices).
    static let quantileSlackShare = 0.10
    static let quantileSlackSeconds = 0.020
    /// z of the two-sided 99 % normal interval.
    static let z99 = 2.5758

    /// Distribution-free 99 % interval of the q-quantile from sorted `v`: the order statistics of
    /// ranks nq ∓ z·√(nq(1−q)) (normal approximation to the binomial rank); an upper rank past n
    /// gives +∞ (a small sample cannot bound a high quantile from above).
    static func quantileInterval(_ v: [Double], _ q: Double) -> (Double, Double)? {
        guard !v.isEmpty else { return nil }
        let n = Double(v.count)
        let spread = z99 * sqrt(n * q * (1 - q))
        let lowRank = Int((n * q - spread).rounded(.down))
        let highRank = Int((n * q + spread).rounded(.up)) + 1
        let lo = lowRank >= 1 ? v[lowRank - 1] : 0
        let hi = highRank <= v.count ? v[highRank - 1] : Double.infinity
        return (lo, hi)
    }

    /// Nearest-rank quantile of sorted `v` (the definition `LatencyHistogram.quantile` uses).
    static func quantile(_ v: [Double], _ q: Double) -> Double? {
        guard !v.isEmpty else { return nil }
        let rank = max(1, Int((q * Double(v.count)).rounded(.up)))
        return v[min(v.count, rank) - 1]
    }

    static func merged(_ hs: [LatencyHistogram]) -> LatencyHistogram? {
        guard var h = hs.first else { return nil }
        for other in hs.dropFirst() { try? h.merge(other) }
        return h
    }
}
