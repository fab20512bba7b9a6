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

    /// A distribution-free interval for the p-quantile from order statistics (see
    /// `OrderStatisticInterval`); nil when it would need a censored value or the sample is too small.
    package func loggedQuantileInterval(_ p: Double, level: Double) -> (lower: Double, upper: Double)? {
        let observed = sample.observed.sorted()
        // Below the smallest censoring point every value's rank is known.
        let firstCensored = sample.censored.min() ?? .infinity
        let known = observed.prefix { $0 < firstCensored }.count
        guard let (l, u) = OrderStatisticInterval.ranks(n: sample.count, p: p, level: level), u <= known else { return nil }
        return (observed[l - 1], observed[u - 1])
    }
}

/// The distribution-free confidence interval for a quantile: with X(1) ≤ … ≤ X(n) the sorted
/// sample, P(X(l) ≤ ξ_p < X(u)) = P(l ≤ B < u) for B ~ Binomial(n, p), whatever the (continuous)
/// distribution. l is the largest rank with P(B < l) ≤ α/2 and u the smallest with P(B ≥ u) ≤ α/2,
/// so the coverage is at least the level (more with ties, which only widen it).
package enum OrderStatisticInterval {
    /// The 1-based ranks (l, u), nil when n is too small for the level (l < 1 or u > n).
    package static func ranks(n: Int, p: Double, level: Double) -> (lower: Int, upper: Int)? {
        guard n > 0, p > 0, p < 1 else { return nil }
        let alpha = (1 - level) / 2
        // pmf(k) in log space (ln k! as a running sum of logs), accumulated into the CDF.
        let lp = log(p), lq = log1p(-p)
        var lnFactorial = [Double](repeating: 0, count: n + 1)
        for k in stride(from: 1, through: n, by: 1) { lnFactorial[k] = lnFactorial[k - 1] + log(Double(k)) }
        var cdf = [Double](repeating: 0, count: n + 1), running = 0.0
        for k in 0...n {
            running += exp(lnFactorial[n] - lnFactorial[k] - lnFactorial[n - k] + Double(k) * lp + Double(n - k) * lq)
            cdf[k] = min(1, running)
        }
        // P(B < l) = cdf[l - 1]; the largest l ≥ 1 with cdf[l - 1] ≤ α/2.
        var l = 0
        for k in 1...n where cdf[k - 1] <= alpha { l = k }
        // P(B ≥ u) = 1 − cdf[u − 1]; the smallest u ≤ n with it ≤ α/2.
        var u = n + 1
        for k in stride(from: n, through: 1, by: -1) where 1 - cdf[k - 1] <= alpha { u = k }
        guard l >= 1, u <= n else { return nil }
        return (l, u)
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
    /// The send the figures below start at (nil: no `--send-time` and no push analytics).
    package let sendTimeSeconds: Double?
    /// Hits among hits and misses at or after the send: the requests a campaign's pre-staging makes.
    package let hitRatioFromSend: Proportion?
    /// 503s among upstream requests (misses and edge errors) at or after the send.
    package let origin503ShareFromSend: Proportion?
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
        /// Every push's sent → delivered time (censored: not delivered), a uniform sample.
        package let sendToDelivered: Reservoir
        /// Every delivered push's sent → opened time (censored: not opened), a uniform sample.
        package let sendToOpened: Reservoir
        /// The same pushes' sent → delivered time, entry by entry.
        package let sendToDeliveredOfOpened: Reservoir

        /// Pushes delivered within `seconds` of their send, of the pushes sent (from the sample; exact below 20 000 pushes).
        package func deliveredWithin(_ seconds: Double, level: Double) -> Proportion? { Self.share(sendToDelivered, within: seconds, level: level) }
        /// Pushes opened within `seconds` of their send, of the pushes delivered within it (a push
        /// delivered later could not have been opened in the window).
        package func openedWithin(_ seconds: Double, level: Double) -> Proportion? {
            var delivered = 0, opened = 0
            for (i, d) in sendToDeliveredOfOpened.values.enumerated() where d <= seconds {
                delivered += 1
                if !sendToOpened.censored[i] && sendToOpened.values[i] <= seconds { opened += 1 }
            }
            return delivered > 0 ? Proportion(successes: opened, trials: delivered, confidenceLevel: level) : nil
        }

        static func share(_ r: Reservoir, within seconds: Double, level: Double) -> Proportion? {
            guard !r.values.isEmpty else { return nil }
            let k = zip(r.values, r.censored).filter { !$1 && $0 <= seconds }.count
            return Proportion(successes: k, trials: r.values.count, confidenceLevel: level)
        }
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
        var problems = ReadProblems(), pushProblems = ReadProblems()
        var push = PushAccumulator()
        var lines = 0, edgeRows = 0, pushRows = 0
        let start = Date()
        let edgeFiles = request.format == .push ? [] : request.logs
        let pushFiles = (request.format == .push ? request.logs : []) + request.pushLogs
        // Push analytics first: their first send splits the edge requests into before and from the
        // send as they stream by. Their problems are listed after the edge logs', as given.
        for path in pushFiles {
            let source = try LineSource(path: path)
            try CSVReader.readPushes(source, problems: &pushProblems) { push.add($0); pushRows += 1 }
            lines += source.linesRead
        }
        let sendTime = request.sendTimeSeconds ?? (push.firstSendSeconds.isFinite ? push.firstSendSeconds : nil)
        var edge = EdgeAccumulator(timeoutSeconds: request.timeoutSeconds, sendSeconds: sendTime)
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
        problems.append(pushProblems)
        let readSeconds = Date().timeIntervalSince(start)
        guard edgeRows + pushRows > 0 else {
            let files = (edgeFiles + pushFiles).joined(separator: ", ")
            throw .noUsableRows("\(files): \(problems.count) malformed line(s) and no usable row" +
                                (problems.quoted.first.map { "; first: \($0)" } ?? ""))
        }
        let level = request.confidenceLevel
        let edgeFits = edgeRows > 0 ? fitEdge(edge, level: level, sendTime: sendTime) : nil
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
                        errorShare: proportion(e.errors, e.requests, level), sendTimeSeconds: sendTime,
                        hitRatioFromSend: sendTime == nil ? nil : proportion(e.hitsFromSend, e.hitsFromSend + e.missesFromSend, level),
                        origin503ShareFromSend: sendTime == nil ? nil : proportion(e.origin503FromSend, e.originRequestsFromSend, level),
                        pops: Array(pops),
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
                                     openedShareOfDelivered: proportion(s.opened, s.delivered, level), networks: s.networks,
                                     sendToDelivered: s.sendToDelivered, sendToOpened: s.sendToOpened,
                                     sendToDeliveredOfOpened: s.sendToDeliveredOfOpened)
        }
        return PushFits(platforms: platforms, logEndSeconds: end, zeroDelays: p.zeroDelays)
    }
}
