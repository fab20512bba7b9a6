import Foundation
import Stochastic

/// The log formats `prestage fit` reads.
public enum LogFormat: String, Sendable, CaseIterable {
    case cloudfront, cloudflare, csv, push
}

/// What to read and how to fit.
public struct FitRequest: Sendable {
    public var logs: [String]
    public var format: LogFormat
    /// Extra push-analytics files read next to CDN logs.
    public var pushLogs: [String] = []
    /// Required for `.csv`.
    public var mapping: CSVMapping?
    public var timeoutSeconds: Double?
    public var confidenceLevel = 0.95
    /// The campaign's send time (default: the first `sent_at` of the push logs, if any).
    public var sendTimeSeconds: Double?
    /// Bootstrap replicates for the tap-delay mixture.
    public var bootstrapReplicates = 30

    public init(logs: [String], format: LogFormat) {
        self.logs = logs
        self.format = format
    }
}

/// One fitted series: candidate families best first, the chosen one (lowest AIC) first.
public struct SeriesFit: Sendable {
    public let name: String
    public let unit: String
    public let fits: [ParametricFit]
    public let sample: CensoredSample
    public var best: ParametricFit { fits[0] }
    /// Empirical (Kaplan–Meier) quantiles at 0.5, 0.9, 0.99 (nil beyond the curve's reach).
    public var loggedQuantiles: [Double?] { [0.5, 0.9, 0.99].map(loggedQuantile) }

    /// The empirical (Kaplan–Meier) p-quantile; nil beyond the curve's reach.
    public func loggedQuantile(_ p: Double) -> Double? {
        GoodnessOfFitTest.kaplanMeier(sample).first { 1 - $0.survival >= p }?.time
    }
}

/// The edge fits.
public struct EdgeFits: Sendable {
    public struct Pop: Sendable {
        public let code: String
        public let requests: Int
        public let hitRatio: Proportion?
        public let hitFirstByte: SeriesFit?
        /// Miss time to first byte minus the PoP's median hit time to first byte.
        public let upstream: SeriesFit?
    }

    public let series: [SeriesFit]
    public let hitRatio: Proportion?
    public let origin503Share: Proportion?
    public let origin5xxShare: Proportion?
    public let errorShare: Proportion?
    /// Largest PoPs by requests, at most `popsReported`.
    public let pops: [Pop]
    /// (minute offset from the send, hit ratio, requests) for the minutes around the send.
    public let hitRatioAroundSend: [(minute: Int, hitRatio: Double, requests: Int)]
    public let requests: Int
    /// Durations logged as 0 and left out of the fits.
    public let zeroDurations: Int

    public func series(_ name: String) -> SeriesFit? { series.first { $0.name == name } }
}

/// The push fits, per platform.
public struct PushFits: Sendable {
    public struct Platform: Sendable {
        public let platform: String
        public let pushes: Int
        public let delivered: Proportion?
        public let delivery: SeriesFit?
        public let taps: LognormalMixtureFit?
        public let tapSample: CensoredSample?
        public let openedShareOfDelivered: Proportion?
        public let networks: [String: Int]
    }

    public let platforms: [Platform]
    public let logEndSeconds: Double
    public let zeroDelays: Int

    public func platform(_ name: String) -> Platform? { platforms.first { $0.platform == name } }
}

/// Everything `prestage fit` learned.
public struct FitOutcome: Sendable {
    public let request: FitRequest
    public let edge: EdgeFits?
    public let push: PushFits?
    public let problems: ReadProblems
    public let linesRead: Int
    public let rowsUsed: Int
    public let readSeconds: Double
    /// Lines per wall-clock second while reading (the fits excluded).
    public var linesPerSecond: Double { readSeconds > 0 ? Double(linesRead) / readSeconds : 0 }
}

/// Reads the logs of a `FitRequest` and fits them.
public enum LogFitter {
    /// PoPs reported and written as overrides.
    public static let popsReported = 20
    /// Fewest values for a fit.
    public static let valuesMin = 30

    /// - Throws: `LogFitError` for unreadable files, bad headers or options, and when no row was usable.
    public static func run(_ request: FitRequest) throws(LogFitError) -> FitOutcome {
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
