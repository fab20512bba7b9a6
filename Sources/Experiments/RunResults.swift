import Foundation
import PushModel
import ReportKit
import ScenarioFormat

/// A file of a run's results directory; the names are stated here once.
package enum RunResultFile: CaseIterable, Sendable {
    /// The resolved scenario (written first, before the run).
    case scenario
    /// summary.json: metrics across replications with CIs (deterministic).
    case summary
    /// timeseries.csv: per-second series.
    case timeSeries
    /// tap-to-paint-windows.csv: tap to paint per window of tap time.
    case tapToPaintWindows
    /// histograms.csv: merged latency histograms.
    case histograms
    /// pops.csv: per-PoP figures.
    case pops
    /// region-misses.csv: pre-stage misses per region over time.
    case regionMisses
    /// report.md.
    case reportMarkdown
    /// report.html.
    case reportHTML
    /// run-info.json: machine-dependent facts, written last (its presence marks a completed run).
    case runInfo
    // bandwidth
    /// bandwidth-pops.csv: edge bytes per PoP over time.
    case bandwidthPops
    /// bandwidth-regions.csv: edge bytes per device region over time.
    case bandwidthRegions
    /// campaigns.csv: each campaign's metrics (written only with two campaigns or more).
    case campaigns

    /// The file's name in the directory.
    package var fileName: String {
        switch self {
        case .scenario: return "scenario.json"
        case .summary: return "summary.json"
        case .timeSeries: return "timeseries.csv"
        case .tapToPaintWindows: return MetricTable.tapToPaintWindowsFile
        case .histograms: return "histograms.csv"
        case .pops: return "pops.csv"
        case .regionMisses: return "region-misses.csv"
        case .reportMarkdown: return "report.md"
        case .reportHTML: return "report.html"
        case .runInfo: return "run-info.json"
        case .bandwidthPops: return "bandwidth-pops.csv"
        case .bandwidthRegions: return "bandwidth-regions.csv"
        case .campaigns: return "campaigns.csv"
        }
    }
}

/// Machine-dependent facts about a run, kept out of summary.json so that file stays byte-identical
/// across machines and thread counts.
package struct RunInfo: Encodable, Sendable {
    let toolVersion: String
    let wallSeconds: Double
    let jobs: Int
    let processorCount: Int
    let eventsProcessed: UInt64
    let eventsPerWallSecond: Double
    let memoryInputs: MemoryInputs
    let memoryEstimate: MemoryEstimate
    let memoryEstimateBytes: UInt64
    let availableMemoryBytes: UInt64
    let availableMemorySource: String
    let forcedMemory: Bool
    /// Peak resident set size of the process (getrusage ru_maxrss).
    let peakResidentBytes: UInt64

    /// The facts of a run of `eventsProcessed` events in `wallSeconds` on `jobs` threads.
    package init(wallSeconds: Double, jobs: Int, processorCount: Int, eventsProcessed: UInt64, memoryInputs: MemoryInputs,
                memoryEstimate: MemoryEstimate, available: AvailableMemory, forcedMemory: Bool, peakResidentBytes: UInt64) {
        toolVersion = ToolVersion.text
        self.wallSeconds = wallSeconds
        self.jobs = jobs
        self.processorCount = processorCount
        self.eventsProcessed = eventsProcessed
        eventsPerWallSecond = wallSeconds > 0 ? Double(eventsProcessed) / wallSeconds : 0
        self.memoryInputs = memoryInputs
        self.memoryEstimate = memoryEstimate
        memoryEstimateBytes = memoryEstimate.totalBytes
        availableMemoryBytes = available.bytes
        availableMemorySource = available.source
        self.forcedMemory = forcedMemory
        self.peakResidentBytes = peakResidentBytes
    }
}

/// The results directory of `prestage run`: opened before the run (the resolved scenario in it),
/// filled with every result file afterwards and committed under its final name.
package struct RunResults: Sendable {
    /// The files a run writes (`run-info.json` last): the only directory an output location may
    /// replace is one holding these and nothing else, i.e. an earlier run's results.
    package static let earlierResults = ResultsDirectory.Replaceable(
        files: Set(RunResultFile.allCases.filter { $0 != .runInfo }.map(\.fileName)), marker: RunResultFile.runInfo.fileName)

    /// What a completed run wrote and what its caller reports.
    package struct Written: Sendable {
        /// The committed directory.
        package let finalURL: URL
        /// The replications combined.
        package let aggregate: RunAggregate
        /// The scenario's objectives checked (nil without any).
        package let slo: SLOReport?
        /// Events processed by all replications.
        package let eventsProcessed: UInt64

        /// Where `file` is in the committed directory.
        package func url(of file: RunResultFile) -> URL { finalURL.appendingPathComponent(file.fileName) }
    }

    /// The directory being written (`NAME.partial` until committed).
    package let directory: ResultsDirectory

    /// Takes `NAME` in `parent` for `owner` (a second run is refused), refuses at once an existing
    /// `NAME` that is not earlier results, starts `NAME.partial` and writes the resolved scenario.
    /// - Throws: `FileOutputError` (the location is taken, not replaceable, or not writable).
    package static func begin(in parent: URL, name: String, owner: OutputOwner, scenarioJSON: Data) throws(FileOutputError) -> RunResults {
        let lock = try ResultsDirectory.claim(in: parent, name: name, owner: owner, replacing: earlierResults)
        let directory = try ResultsDirectory.begin(lock, ownFiles: earlierResults.files)
        try directory.write(scenarioJSON, named: RunResultFile.scenario.fileName)
        return RunResults(directory: directory)
    }

    /// Writes every result file of `results` (in replication order), then `runInfo` (given the
    /// events processed) last, and commits inside `committing` (the interrupt guard holds signals
    /// during the commit), replacing earlier results.
    /// - Throws: any failure to combine, encode or write; the directory is then left partial.
    package func write(scenario: ScenarioFile, hash: String, results: [ReplicationResult], invocation: ReportBuilder.Invocation,
                      runInfo: (_ eventsProcessed: UInt64) -> RunInfo,
                      committing: (_ commit: () throws -> URL) throws -> URL = { try $0() }) throws -> Written {
        let aggregate = try RunAggregate(results: results, confidenceLevel: scenario.run.confidenceLevel,
                                         relativeHalfWidthTarget: scenario.run.relativeHalfWidthTarget, perDraw: scenario.replicationsPerDraw)
        try directory.write(try ResultFiles.summaryJSON(scenario: scenario, hash: hash, results: results, aggregate: aggregate),
                            named: RunResultFile.summary.fileName)
        try directory.write(ResultFiles.timeSeriesCSV(aggregate), named: RunResultFile.timeSeries.fileName)
        try directory.write(ResultFiles.tapToPaintWindowsCSV(aggregate), named: RunResultFile.tapToPaintWindows.fileName)
        try directory.write(ResultFiles.histogramsCSV(aggregate), named: RunResultFile.histograms.fileName)
        if let csv = ResultFiles.campaignsCSV(scenario: scenario, aggregate: aggregate) { try directory.write(csv, named: RunResultFile.campaigns.fileName) }
        let tables = PopAndRegionTables(results: results, regionPops: scenario.world.infra.topology.effectiveRegions.map(\.popIndex),
                                        confidenceLevel: scenario.run.confidenceLevel, names: TopologyNames(popNames: scenario.world.infra.topology.popNames,
                                                                            regionNames: scenario.world.infra.topology.regionNames))
        try directory.write(tables.popsCSV(), named: RunResultFile.pops.fileName)
        try directory.write(tables.regionMissesCSV(), named: RunResultFile.regionMisses.fileName)
        try directory.write(tables.bandwidth.popsCSV(), named: RunResultFile.bandwidthPops.fileName)
        try directory.write(tables.bandwidth.regionsCSV(), named: RunResultFile.bandwidthRegions.fileName)
        var report = ReportBuilder.build(scenario: scenario, hash: hash, aggregate: aggregate, tables: tables, results: results,
                                         invocation: invocation)
        let slo = scenario.slo.isEmpty ? nil : SLOReport(scenario.slo, aggregate: aggregate, perDraw: scenario.replicationsPerDraw)
        if let slo {
            // The verdict first: the objectives before the headline cards, each failed one's card flagged.
            report.sections.insert(slo.displaySection, at: 0)
            report.leadSectionCount = 1
            for (i, card) in report.headlines.enumerated() {
                let failed = slo.evaluations.filter { $0.objective.metric == card.id && $0.verdict == .fail }
                if !failed.isEmpty { report.headlines[i].failedObjective = failed.map(\.objective.text).joined(separator: "; ") }
            }
        }
        try directory.write(Data(MarkdownRenderer().render(report).utf8), named: RunResultFile.reportMarkdown.fileName)
        try directory.write(Data(HTMLRenderer().render(report).utf8), named: RunResultFile.reportHTML.fileName)
        let events = results.reduce(UInt64(0)) { $0 &+ $1.eventsProcessed }
        try directory.write(try CanonicalJSON.encode(runInfo(events)), named: RunResultFile.runInfo.fileName)
        let final = try committing { try directory.commit(replacing: Self.earlierResults) }
        return Written(finalURL: final, aggregate: aggregate, slo: slo, eventsProcessed: events)
    }
}
