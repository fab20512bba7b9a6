import Experiments
import Foundation
import ScenarioFormat

/// `prestage merge SHARD_DIR... --out DIR`: combines the shard directories of one sweep into the
/// directory an unsharded `prestage sweep` would have written, byte for byte.
///
/// Refuses (exit 2, naming the directory): an incomplete shard (`DIR.partial`, or an `INCOMPLETE`
/// marker), a directory that is not a shard, shards of different sweeps (sweep hash) or of
/// different shard counts, a shard given twice or missing, and missing, damaged or misplaced items.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandSpec(
        "merge", summary: "combine the shard directories of one sweep into its complete results",
        positionals: ["DIR..."], declaring: [OutputOptions.out.help("where the merged results go (required)"), MetricsOption.metrics],
        exitCodes: [ExitCodeDoc(.ok), ExitCodeDoc(.runFailed, "the merged results could not be written"),
                    ExitCodeDoc(.badInput, "a missing, incomplete, foreign or duplicate shard, or a bad option")])

    static let helpFooter = SweepHelp.merge

    /// DIR...: the shard directories.
    let directories: [String]
    /// `--out`.
    let out: String?
    /// `--metrics`.
    let metricsOption: MetricsOption

    init(parsed: ParsedCommand) {
        directories = parsed.positionals
        out = parsed[OutputOptions.out]
        metricsOption = MetricsOption(parsed)
    }

    func execute(environment env: CommandEnvironment) -> ExitCode {
        guard let out else {
            env.standardError.write("prestage merge: expected --out DIR (where the merged results go), found nothing\n")
            return .badInput
        }
        let metrics: [String]
        switch metricsOption.chosen() {
        case let .success(m): metrics = m
        case let .failure(message):
            env.standardError.write("prestage merge: \(message)\n")
            return .badInput
        }
        let url = URL(fileURLWithPath: out).standardizedFileURL
        if FileManager.default.fileExists(atPath: url.path) {
            env.standardError.write("prestage merge: --out \(out): already exists; remove it or choose another directory\n")
            return .badInput
        }
        let merged: (SweepManifest, Data, [Data], [SweepItemResult])
        switch SweepMerge.collect(directories) {
        case let .success(m): merged = m
        case let .failure(message):
            env.standardError.write("prestage merge: \(message)\n")
            return .badInput
        }
        let (manifest, scenarioData, itemData, items) = merged
        let directory: ResultsDirectory
        do {
            directory = try ResultsDirectory.begin(in: url.deletingLastPathComponent(), name: url.lastPathComponent, owner: env.owner())
        } catch {
            env.standardError.write("prestage merge: \(error)\n")
            return .badInput
        }
        return writingResults(directory, command: "merge", failure: "Writing the merged results failed", environment: env) {
            try directory.write(try CanonicalJSON.encode(manifest), named: SweepFiles.manifestName)
            try directory.write(scenarioData, named: SweepFiles.scenarioName)
            let itemsURL = directory.partialURL.appendingPathComponent(SweepFiles.itemsDirectory, isDirectory: true)
            try FileManager.default.createDirectory(at: itemsURL, withIntermediateDirectories: true)
            for (item, data) in zip(items, itemData) {
                try AtomicWriter.write(data, to: itemsURL.appendingPathComponent(SweepItemResult.fileName(point: item.point, replication: item.replication)))
            }
            try SweepFiles.writeResults(directory, manifest: manifest, items: items, reportMetrics: metrics)
            let final = try directory.commit()
            env.standardError.write("prestage merge: \(directories.count) shard(s), \(items.count) items of \(manifest.points.count) point(s) × \(manifest.replications) replication(s)\n")
            env.standardOutput.write(SweepCommand.pointTable(manifest: manifest, items: items, metrics: metrics))
            env.standardOutput.write("results: \(final.path)\n")
            return .ok
        }
    }
}
