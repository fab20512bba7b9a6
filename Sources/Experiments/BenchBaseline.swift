import Foundation
import ScenarioFormat

/// One gated metric's per-replication values in a baseline.
struct BenchBaselineMetric: Codable, Sendable, Equatable {
    /// The metric's name.
    var name: String
    /// Its unit.
    var unit: String
    /// Replication r's value at index r (null where the replication had none).
    var values: [Double?]
    /// Mean of the finite values, for readers of the diff (recomputed, never trusted on load).
    var mean: Double?
}

/// `results/baseline/SCENARIO.json`: what `prestage bench` compares with. Deterministic for a
/// given code and scenario (no times, no machine facts), pretty-printed with sorted keys, so the
/// diff after `make bench-baseline` shows exactly what changed.
package struct BenchBaseline: Codable, Sendable, Equatable {
    /// Identifies the file format.
    static let formatName = "prestage-bench-baseline/1"

    /// `formatName`.
    var format: String
    /// The scenario's name (also the file's base name).
    var scenarioName: String
    /// Hash of the resolved scenario the baseline was recorded with.
    package var scenarioHash: String
    /// Master seed: replication r of the baseline and of a gate run share random streams.
    package var seed: UInt64
    /// Replications recorded.
    package var replications: Int
    /// Population size recorded.
    package var devices: Int
    /// Replication 0's event-trace fingerprint.
    package var fingerprint: BenchFingerprint
    /// The gated metrics the scenario produces, sorted by name.
    var metrics: [BenchBaselineMetric]

    /// The baseline of a finished suite run.
    package init(_ run: BenchScenarioRun) {
        format = Self.formatName
        scenarioName = run.scenario.name
        scenarioHash = run.scenarioHash
        seed = run.scenario.run.seed
        replications = run.scenario.run.replications
        devices = run.scenario.world.population.devices
        fingerprint = run.fingerprint
        metrics = run.metrics.filter { BenchSuite.gate(named: $0.name) != nil }
            .map { BenchBaselineMetric(name: $0.name, unit: $0.unit, values: $0.values, mean: $0.mean) }
            .sorted { $0.name < $1.name }
    }

    /// The metric named `name`.
    func metric(_ name: String) -> BenchBaselineMetric? { metrics.first { $0.name == name } }

    /// The file for scenario `name` in `directory`.
    package static func url(in directory: URL, scenario name: String) -> URL { directory.appendingPathComponent(name + ".json") }

    /// Reads and checks a baseline file.
    /// - Throws: `CommandMessage` naming the file and the problem.
    package static func load(_ url: URL) throws(CommandMessage) -> BenchBaseline {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int ?? 0
        guard size <= BenchSuite.baselineBytesMax else {
            throw CommandMessage("\(url.path): expected a baseline of at most \(BenchSuite.baselineBytesMax) bytes, found \(size) bytes")
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw CommandMessage("\(url.path): no baseline for this scenario; record one with `make bench-baseline`")
        }
        let b: BenchBaseline
        do { b = try JSONDecoder().decode(BenchBaseline.self, from: data) } catch {
            throw CommandMessage("\(url.path): expected a prestage bench baseline, found a file that does not decode (\(DecodingErrorText.describe(error)))")
        }
        guard b.format == formatName else {
            throw CommandMessage("\(url.path): format: expected \"\(formatName)\", found \"\(b.format)\"")
        }
        for m in b.metrics where m.values.count != b.replications {
            throw CommandMessage("\(url.path): metrics \(m.name): expected \(b.replications) values (one per replication), found \(m.values.count)")
        }
        return b
    }
}

/// `results/baseline/speed.json`: the suite's CPU-time ratio against the calibration loop. The
/// only baseline file that changes when regenerated without a code change (its ratios are
/// measurements); it holds no wall times.
package struct BenchSpeedBaseline: Codable, Sendable, Equatable {
    /// Identifies the file format.
    static let formatName = "prestage-bench-speed/1"
    /// The file's name in the baseline directory.
    package static let fileName = "speed.json"

    /// `formatName`.
    var format: String
    /// The calibration loop's checksum: a different value means the loop changed and the ratios
    /// are not comparable.
    package var calibrationChecksum: UInt64
    /// The suite's CPU-time ratio to the calibration loop (`BenchSpeedMeasurement.suiteRatio`).
    package var suiteRatio: Double
    /// Each scenario's best CPU time ÷ best calibration CPU time, by scenario name.
    package var scenarioRatios: [BenchScenarioRatio]

    /// The baseline of a measurement (ratios rounded to 4 significant digits for a quiet diff).
    package init(_ m: BenchSpeedMeasurement) {
        format = Self.formatName
        calibrationChecksum = m.calibrationChecksum
        suiteRatio = Self.rounded(m.suiteRatio)
        scenarioRatios = m.scenarios.map { BenchScenarioRatio(scenario: $0.scenario, ratio: Self.rounded($0.ratio)) }
            .sorted { $0.scenario < $1.scenario }
    }

    static func rounded(_ x: Double) -> Double {
        guard x > 0, x.isFinite else { return x }
        let scale = pow(10, 3 - floor(log10(x)))
        return (x * scale).rounded() / scale
    }

    /// Reads `directory/speed.json`; nil if absent.
    /// - Throws: `CommandMessage` if it exists but cannot be used.
    package static func load(in directory: URL) throws(CommandMessage) -> BenchSpeedBaseline? {
        let url = directory.appendingPathComponent(fileName)
        guard let b = try OptionalBaselineFile.load(BenchSpeedBaseline.self, url, what: "speed baseline", format: \.format, expected: formatName)
        else { return nil }
        guard b.suiteRatio > 0, b.suiteRatio.isFinite else {
            throw CommandMessage("\(url.path): suiteRatio: expected a finite number > 0, found \(b.suiteRatio)")
        }
        return b
    }
}

/// One scenario's speed ratio.
package struct BenchScenarioRatio: Codable, Sendable, Equatable {
    /// The scenario's name.
    package var scenario: String
    /// Its best replication-0 CPU time ÷ the best calibration CPU time.
    var ratio: Double
}

/// A baseline file that may be absent (`speed.json`, `instructions.json`): size-checked, decoded,
/// its format name checked.
enum OptionalBaselineFile {
    /// nil if `url` does not exist.
    /// - Throws: `CommandMessage` naming the file when it is too large, unreadable, does not
    ///   decode or has another format.
    static func load<T: Decodable>(_ type: T.Type, _ url: URL, what: String, format: KeyPath<T, String>, expected: String) throws(CommandMessage) -> T? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int ?? 0
        guard size <= BenchSuite.baselineBytesMax, let data = FileManager.default.contents(atPath: url.path) else {
            throw CommandMessage("\(url.path): expected a readable \(what) of at most \(BenchSuite.baselineBytesMax) bytes")
        }
        let b: T
        do { b = try JSONDecoder().decode(T.self, from: data) } catch {
            throw CommandMessage("\(url.path): expected a prestage bench \(what), found a file that does not decode (\(DecodingErrorText.describe(error)))")
        }
        guard b[keyPath: format] == expected else {
            throw CommandMessage("\(url.path): format: expected \"\(expected)\", found \"\(b[keyPath: format])\"")
        }
        return b
    }
}
