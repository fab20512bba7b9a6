import Foundation
import Stochastic

/// The log formats `prestage fit` reads.
package enum LogFormat: String, Sendable, CaseIterable {
    case cloudfront, cloudflare, csv, push
}

/// What to read and how to fit.
package struct FitRequest: Sendable {
    package var logs: [String]
    package var format: LogFormat
    /// Extra push-analytics files read next to CDN logs.
    package var pushLogs: [String] = []
    /// Required for `.csv`.
    package var mapping: CSVMapping?
    package var timeoutSeconds: Double?
    package var confidenceLevel = 0.95
    /// The campaign's send time (default: the first `sent_at` of the push logs, if any).
    package var sendTimeSeconds: Double?
    /// Bootstrap replicates for the tap-delay mixture.
    package var bootstrapReplicates = 30

    package init(logs: [String], format: LogFormat) {
        self.logs = logs
        self.format = format
    }
}

/// One fitted series: candidate families best first, the chosen one (lowest AIC) first.
package struct SeriesFit: Sendable {
    package let name: String
    package let unit: String
    package let fits: [ParametricFit]
    package let sample: CensoredSample
    package var best: ParametricFit { fits[0] }
    /// Empirical (Kaplan–Meier) quantiles at 0.5, 0.9, 0.99 (nil beyond the curve's reach).
    package var loggedQuantiles: [Double?] { [0.5, 0.9, 0.99].map(loggedQuantile) }

    /// The empirical (Kaplan–Meier) p-quantile; nil beyond the curve's reach.
    package func loggedQuantile(_ p: Double) -> Double? {
        GoodnessOfFitTest.kaplanMeier(sample).first { 1 - $0.survival >= p }?.time
    }
}

/// The edge fits.
package struct EdgeFits: Sendable {
    package struct Pop: Sendable {
        package let code: String
        package let requests: Int
        package let hitRatio: Proportion?
        package let hitFirstByte: SeriesFit?
        /// Miss time to first byte minus the PoP's median hit time to first byte.
        package let upstream: SeriesFit?
    }

    package let series: [SeriesFit]
    package let hitRatio: Proportion?
    package let origin503Share: Proportion?
    package let origin5xxShare: Proportion?
    package let errorShare: Proportion?
    /// Largest PoPs by requests, at most `popsReported`.
    package let pops: [Pop]
    /// (minute offset from the send, hit ratio, requests) for the minutes around the send.
    package let hitRatioAroundSend: [(minute: Int, hitRatio: Double, requests: Int)]
    package let requests: Int
    /// Durations logged as 0 and left out of the fits.
    package let zeroDurations: Int

    package func series(_ name: String) -> SeriesFit? { series.first { $0.name == name } }
}

/// The push fits, per platform.
package struct PushFits: Sendable {
    package struct Platform: Sendable {
        package let platform: String
        package let pushes: Int
        package let delivered: Proportion?
        package let delivery: SeriesFit?
        package let taps: LognormalMixtureFit?
        package let tapSample: CensoredSample?
        package let openedShareOfDelivered: Proportion?
        package let networks: [String: Int]
    }

    package let platforms: [Platform]
    package let logEndSeconds: Double
    package let zeroDelays: Int

    package func platform(_ name: String) -> Platform? { platforms.first { $0.platform == name } }
}

/// Everything `prestage fit` learned.
package struct FitOutcome: Sendable {
    package let request: FitRequest
    package let edge: EdgeFits?
    package let push: PushFits?
    package let problems: ReadProblems
    package let linesRead: Int
    package let rowsUsed: Int
    package let readSeconds: Double
    /// Lines per wall-clock second while reading (the fits excluded).
    package var linesPerSecond: Double { readSeconds > 0 ? Double(linesRead) / readSeconds : 0 }
}

/// Reads the logs of a `FitRequest` and fits them.
package enum LogFitter {
    /// PoPs reported and written as overrides.
    package static let popsReported = 20
    /// Fewest values for a fit.
    package static let valuesMin = 30

    /// - Throws: `LogFitError` for unreadable files, bad headers or options, and when no row was usable.
    package static func run(_ request: FitRequest) throws(LogFitError) -> FitOutcome {
        var problems = ReadProblems()
        var edge = EdgeAccumulator(timeoutSeconds: request.timeoutSeconds)
        var push = PushAccumulator()
        var lines = 0, edgeRows = 0, pushRows = 0
        let start = Date()
        let edgeFiles = request.format == .push ? [] : request.logs
        let pushFiles = (request.format == .push ? request.logs : []) + request.pushLogs
        for path in edgeFiles {
            let source = try LineSource(path: path)
            let counting: (EdgeRecord) -> Void = { edge.add($0); edgeRows += 1 }
            switch request.format {
            case .cloudfront: try CloudFrontReader.read(source, problems: &problems, emit: counting)
            case .cloudflare: CloudflareReader.read(source, problems: &problems, emit: counting)
            case .csv:
                guard let mapping = request.mapping else { throw .badOption("--format csv needs --map (e.g. --map time=timestamp,cache=cache_status,ttfb=ttfb_ms:ms)") }
                try CSVReader.readEdge(source, mapping: mapping, problems: &problems, emit: counting)
            case .push: break
            }
            lines += source.linesRead
        }
        for path in pushFiles {
            let source = try LineSource(path: path)
            try CSVReader.readPushes(source, problems: &problems) { push.add($0); pushRows += 1 }
            lines += source.linesRead
        }
        let readSeconds = Date().timeIntervalSince(start)
        guard edgeRows + pushRows > 0 else {
            let files = (edgeFiles + pushFiles).joined(separator: ", ")
            throw .noUsableRows("\(files): \(problems.count) malformed line(s) and no usable row" +
                                (problems.quoted.first.map { "; first: \($0)" } ?? ""))
        }
        let level = request.confidenceLevel
        let edgeFits = edgeRows > 0 ? fitEdge(edge, level: level, sendTime: request.sendTimeSeconds ?? (push.firstSendSeconds.isFinite ? push.firstSendSeconds : nil)) : nil
        let pushFits = pushRows > 0 ? fitPush(push, level: level, bootstrap: request.bootstrapReplicates) : nil
        return FitOutcome(request: request, edge: edgeFits, push: pushFits, problems: problems, linesRead: lines,
                          rowsUsed: edgeRows + pushRows, readSeconds: readSeconds)
    }

    /// Fits every family to a reservoir; nil with fewer than `valuesMin` observed values or when they are all equal.
    static func series(_ name: String, unit: String, _ reservoir: Reservoir, level: Double,
                       map: (Double, Bool) -> Double? = { v, _ in v }) -> SeriesFit? {
        let (o, c) = reservoir.split(map)
        // A constant series (every object the same size) has no shape to fit.
        guard o.count >= valuesMin, let low = o.min(), let high = o.max(), low < high,
              let sample = try? CensoredSample(observed: o, censored: c, resolution: CensoredSample.materialResolution(of: o)),
              let fits = try? MaximumLikelihood.fitAll(sample, confidenceLevel: level) else { return nil }
        return SeriesFit(name: name, unit: unit, fits: fits, sample: sample)
    }

    static func proportion(_ k: Int, _ n: Int, _ level: Double) -> Proportion? {
        n > 0 ? Proportion(successes: k, trials: n, confidenceLevel: level) : nil
    }

    static func fitEdge(_ e: EdgeAccumulator, level: Double, sendTime: Double?) -> EdgeFits {
        var series: [SeriesFit] = []
        let hitFirstByte = Self.series("edge.hit.firstByteSeconds", unit: "s", e.hitFirstByte, level: level)
        series += [hitFirstByte, Self.series("edge.miss.firstByteSeconds", unit: "s", e.missFirstByte, level: level),
                   Self.series("edge.hit.transferSeconds", unit: "s", e.hitTransfer, level: level),
                   Self.series("edge.miss.transferSeconds", unit: "s", e.missTransfer, level: level),
                   Self.series("edge.totalSeconds", unit: "s", e.total, level: level)].compactMap { $0 }
        // Upstream time: the origin's own figure when the log has it, else miss TTFB minus the median hit TTFB.
        if let origin = Self.series("origin.responseSeconds", unit: "s", e.origin, level: level) {
            series.append(origin)
        } else if let h = hitFirstByte?.loggedQuantiles[0],
                  let upstream = Self.series("origin.responseSeconds", unit: "s", e.missFirstByte, level: level, map: { v, c in v - h }) {
            series.append(upstream)
        }
        if let bytes = Self.series("object.bytes", unit: "bytes", e.objectBytes, level: level) { series.append(bytes) }
        let ranked = e.pops.keys.sorted { (e.pops[$0]!.requests, $1) > (e.pops[$1]!.requests, $0) }
        let pops = ranked.prefix(popsReported).map { code -> EdgeFits.Pop in
            let p = e.pops[code]!
            let hit = Self.series("pop.\(code).hit.firstByteSeconds", unit: "s", p.hitFirstByte, level: level)
            let upstream = hit?.loggedQuantiles[0].flatMap { h in
                Self.series("pop.\(code).upstreamSeconds", unit: "s", p.missFirstByte, level: level, map: { v, _ in v - h })
            }
            return EdgeFits.Pop(code: code, requests: p.requests, hitRatio: proportion(p.hits, p.hits + p.misses, level),
                                hitFirstByte: hit, upstream: upstream)
        }
        var around: [(minute: Int, hitRatio: Double, requests: Int)] = []
        if let sendTime {
            let sendMinute = Int((sendTime / 60).rounded(.down))
            for offset in -10...60 {
                guard let m = e.minutes[sendMinute + offset], m.hits + m.misses > 0 else { continue }
                around.append((offset, Double(m.hits) / Double(m.hits + m.misses), m.hits + m.misses))
            }
        }
        return EdgeFits(series: series, hitRatio: proportion(e.hits, e.hits + e.misses, level),
                        origin503Share: proportion(e.origin503, e.originRequests, level),
                        origin5xxShare: proportion(e.origin5xx, e.originRequests, level),
                        errorShare: proportion(e.errors, e.requests, level), pops: Array(pops),
                        hitRatioAroundSend: around, requests: e.requests, zeroDurations: e.zeroDurations)
    }

    static func fitPush(_ p: PushAccumulator, level: Double, bootstrap: Int) -> PushFits {
        let end = p.logEndSeconds
        let platforms = p.platforms.keys.sorted().map { name -> PushFits.Platform in
            let s = p.platforms[name]!
            let (o, c) = s.taps.split { v, censored in censored ? end - v : v }
            var taps: LognormalMixtureFit?
            var tapSample: CensoredSample?
            if o.count >= valuesMin, let sample = try? CensoredSample(observed: o, censored: c) {
                tapSample = sample
                taps = try? LognormalMixtureEM.fit(sample, componentsMax: 3, neverShare: true, confidenceLevel: level,
                                                   bootstrapReplicates: bootstrap, seed: 7)
            }
            return PushFits.Platform(platform: name, pushes: s.pushes, delivered: proportion(s.delivered, s.pushes, level),
                                     delivery: series("push.\(name).deliverySeconds", unit: "s", s.delivery, level: level),
                                     taps: taps, tapSample: tapSample,
                                     openedShareOfDelivered: proportion(s.opened, s.delivered, level), networks: s.networks)
        }
        return PushFits(platforms: platforms, logEndSeconds: end, zeroDelays: p.zeroDelays)
    }
}
