import Dispatch
import Experiments
import Foundation
import PushModel
import ReportKit
import ScenarioFormat

/// `prestage sweep FILE [--out DIR] [--jobs N] [--shard i/N] [--force-memory]`.
///
/// Work item k is (point k / R, replication k mod R). Each finished item is written atomically to
/// `DIR.partial/items/pP-rR.json`; rerunning with the same `--out` keeps the valid items and runs
/// only the missing ones. Unsharded, the directory is completed with sweep.csv, points.csv,
/// summary.json, report.md and report.html; with `--shard i/N` it holds the items k ≡ i (mod N) and shard.json, for `merge`.
struct SweepCommand: ParsableCommand {
    /// `--shard i/N`.
    static let shardOption = Option.string("shard", valueName: "i/N", help: "run only the work items k with k mod N = i (then prestage merge)")

    static let configuration = CommandSpec(
        "sweep", summary: "run a grid of scenario variants × replications (resumable; --shard i/N for clusters)",
        positionals: ["FILE"], declaring: [
            OutputOptions.out.help("results directory (default: results/FILE-NAME)"),
            OutputOptions.jobs.help("work items run at once (default: all cores)"),
            shardOption,
            MetricsOption.metrics,
            RunOptions.forceMemory,
        ], exitCodes: PrestageCLI.runExitCodes)

    static let helpFooter = SweepHelp.sweep

    /// FILE: the sweep file.
    let path: String
    /// `--out`, `--jobs`.
    let output: OutputOptions
    /// `--shard` as given.
    let shardText: String?
    /// `--metrics`.
    let metricsOption: MetricsOption
    /// `--force-memory`.
    let forceMemory: Bool

    init(parsed: ParsedCommand) {
        path = parsed.positionals[0]
        output = OutputOptions(parsed)
        shardText = parsed[Self.shardOption]
        metricsOption = MetricsOption(parsed)
        forceMemory = parsed[RunOptions.forceMemory]
    }

    func execute(environment env: CommandEnvironment) -> ExitCode {
        let library = ScenarioLibrary(directories: env.scenarioDirectories)
        let plan: SweepPlan
        let shard: ShardSpec?
        let metrics: [String]
        do throws(CommandMessage) {
            metrics = try metricsOption.chosen().get()
            if let hint = Self.scenarioInsteadOfSweep(path, library: library) { throw CommandMessage(hint) }
            plan = try SweepPlan.load(path, library: library)
            shard = try shardText.map { text throws(CommandMessage) in try ShardSpec(parsing: text) }
        } catch {
            env.standardError.write(error.description + "\n")
            return .badInput
        }
        let manifest = plan.manifest
        let mine = (0..<manifest.itemCount).filter { shard?.owns($0) ?? true }
        // Where the results go.
        let (parent, name) = output.location(resultsParent: env.resultsParent) {
            var base = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            if let shard { base += "-shard\(shard.index)-of\(shard.count)" }
            return base
        }
        // This sweep owns NAME and NAME.partial from here on; a second run is refused.
        let lock: OutputLock
        do {
            lock = try OutputLock.acquire(in: parent, name: name, owner: env.owner())
        } catch {
            env.standardError.write("prestage sweep: \(error)\n")
            return .badInput
        }
        let finalURL = parent.appendingPathComponent(name, isDirectory: true)
        // A complete directory of this very sweep and shard: nothing to do.
        if FileManager.default.fileExists(atPath: finalURL.path) {
            switch Self.existingMatches(finalURL, manifest: manifest, shard: shard) {
            case .success:
                env.standardError.write("prestage sweep: \(finalURL.path) already holds this complete sweep\(shard.map { " shard \($0.text)" } ?? ""); nothing to run\n")
                env.standardOutput.write("results: \(finalURL.path)\n")
                lock.removeAndRelease()
                return .ok
            case let .failure(message):
                env.standardError.write("prestage sweep: \(message); choose another --out or remove it\n")
                lock.removeAndRelease()
                return .badInput
            }
        }
        // The memory guard: the largest point, `jobs` replications at once.
        let jobs = max(1, min(output.jobs ?? env.processorCount, max(1, mine.count)))
        let available = env.availableMemory()
        let largest = plan.scenarios.max { MemoryEstimate(RunCommand.memoryInputs($0, concurrentReplications: jobs)).totalBytes
            < MemoryEstimate(RunCommand.memoryInputs($1, concurrentReplications: jobs)).totalBytes } ?? plan.base
        let inputs = RunCommand.memoryInputs(largest, concurrentReplications: jobs)
        if let refusal = MemoryGuard.refusal(estimate: MemoryEstimate(inputs), available: available, inputs: inputs) {
            if !forceMemory {
                env.standardError.write("prestage sweep: " + refusal + "\n")
                lock.removeAndRelease()
                return .badInput
            }
            env.standardError.write("prestage sweep: warning: --force-memory: the memory estimate exceeds the available memory\n")
        }
        // Resume a partial directory of this sweep, or start one.
        let directory: ResultsDirectory
        do {
            directory = try SweepFiles.open(lock, manifest: manifest, base: plan.base)
        } catch {
            env.standardError.write("prestage sweep: \(error)\n")
            return .badInput
        }
        let items = directory.partialURL.appendingPathComponent(SweepFiles.itemsDirectory, isDirectory: true)
        // items/ must be a real directory holding only this run's items: the temporary files of
        // writes cut short are removed; anything else (another file, a hidden file, a link) is
        // refused and named, never followed, deleted or carried into the results.
        let owned = Set(mine.map { SweepItemResult.fileName(point: $0 / manifest.replications, replication: $0 % manifest.replications) })
        do {
            _ = try ResultsDirectory.checkItemEntries(items, what: "the items of this sweep" + (shard.map { " shard \($0.text)" } ?? ""),
                                                      removingCutShortWrites: true) { owned.contains($0) }
        } catch {
            env.standardError.write("prestage sweep: \(error)\n")
            return .badInput
        }
        // Items already complete (and verified by their content hash) are kept; edited, damaged,
        // misplaced or foreign ones are named and run again.
        var missing: [Int] = []
        for k in mine {
            switch SweepFiles.readItem(items, point: k / manifest.replications, replication: k % manifest.replications, manifest: manifest) {
            case .success?: continue
            case let .failure(message)?:
                env.standardError.write("prestage sweep: warning: \(message); running it again\n")
                missing.append(k)
            case nil: missing.append(k)
            }
        }
        let interrupt = env.handlesInterrupts ? InterruptGuard(directory: directory, output: env.standardError, command: "prestage sweep") : nil
        defer { interrupt?.remove() }
        let shardText = shard.map { " (shard \($0.text): \(mine.count) of \(manifest.itemCount) items)" } ?? ""
        env.standardError.write("prestage sweep: \(manifest.scenarioName): \(manifest.points.count) point(s) × \(manifest.replications) replication(s)\(shardText), "
                                + "seed \(manifest.seed), \(missing.count) item(s) to run"
                                + (missing.count < mine.count ? " (\(mine.count - missing.count) already complete)" : "")
                                + " on \(min(jobs, max(1, missing.count))) thread(s) → \(finalURL.path)\n")
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            try SweepRunner(plan: plan, items: items, jobs: jobs).run(missing, mine: mine) { line in
                let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                env.standardError.write(line + " (\(TextNumber.format(wall, significant: 3)) s wall)\n")
            }
        } catch {
            env.standardError.write("prestage sweep: \(error)\n")
            RunCommand.markIncomplete(directory, reason: "The sweep failed: \(error). Rerun the same command to run the missing items.")
            env.standardError.write("prestage sweep: completed items kept in \(directory.partialURL.path); rerun to resume\n")
            return .runFailed
        }
        return writingResults(directory, command: "sweep", environment: env) {
            if let shard {
                let info = SweepShardInfo(format: SweepShardInfo.formatName, sweepHash: manifest.sweepHash, shard: shard, items: mine.count)
                try directory.write(try CanonicalJSON.encode(info), named: SweepFiles.shardName)
            } else {
                let all = try Self.loadAll(items, manifest: manifest)
                try SweepFiles.writeResults(directory, manifest: manifest, items: all, reportMetrics: metrics)
                env.standardOutput.write(Self.pointTable(manifest: manifest, items: all, metrics: metrics))
            }
            let final = try interrupt.map { try $0.committing { try directory.commit() } } ?? directory.commit()
            env.standardOutput.write("results: \(final.path)\n")
            return .ok
        }
    }

    /// A message when `path` names a scenario rather than a sweep file: a library name that is not a
    /// file, or a JSON file with `campaigns` and no `grid`. Says how to run it and how to sweep it.
    static func scenarioInsteadOfSweep(_ path: String, library: ScenarioLibrary) -> String? {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let name: String
        if exists {
            guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: path), data.count < 8 << 20,
                  let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
                  object["grid"] == nil, object["campaigns"] != nil else { return nil }
            name = path
        } else {
            let base = path.hasSuffix(".json") ? String(path.dropLast(5)) : path
            guard !path.contains("/"), library.entries().contains(where: { $0.name == base }) else { return nil }
            name = base
        }
        return """
            \(path): expected a sweep file, found a scenario. Run the scenario with:
              prestage run \(name)
            or sweep it with a sweep file such as
              { "scenario": "\(name)", "replications": 5, "seed": 1,
                "grid": { "campaigns[0].warm.aheadSeconds": [0, 120, 300, 600] } }
            (see prestage help sweep)
            """
    }

    /// Whether the complete directory `url` holds this sweep (and shard).
    static func existingMatches(_ url: URL, manifest: SweepManifest, shard: ShardSpec?) -> Result<Void, CommandMessage> {
        switch SweepFiles.readManifest(url) {
        case let .failure(m): return .failure(CommandMessage("\(url.path) exists and is not this sweep's result directory (\(m))"))
        case let .success((found, _)):
            guard found.sweepHash == manifest.sweepHash else {
                return .failure(CommandMessage("\(url.path) holds a different sweep (\(found.sweepHash), this one is \(manifest.sweepHash))"))
            }
        }
        let shardURL = url.appendingPathComponent(SweepFiles.shardName)
        let hasShard = FileManager.default.fileExists(atPath: shardURL.path)
        if let shard {
            guard hasShard, case let .success((info, _)) = SweepFiles.read(SweepShardInfo.self, shardURL, what: "shard.json"), info.shard == shard else {
                return .failure(CommandMessage("\(url.path) holds this sweep, but not as shard \(shard.text)"))
            }
        } else if hasShard {
            return .failure(CommandMessage("\(url.path) holds a shard of this sweep, not the whole sweep (merge the shards with prestage merge)"))
        }
        return .success(())
    }

    /// Every item of the sweep from `items`, in item order.
    static func loadAll(_ items: URL, manifest: SweepManifest) throws(CommandMessage) -> [SweepItemResult] {
        var out: [SweepItemResult] = []
        out.reserveCapacity(manifest.itemCount)
        for k in 0..<manifest.itemCount {
            let (p, r) = (k / manifest.replications, k % manifest.replications)
            switch SweepFiles.readItem(items, point: p, replication: r, manifest: manifest) {
            case let .success((item, _))?: out.append(item)
            case let .failure(m)?: throw m
            case nil: throw CommandMessage("\(items.path): missing item \(SweepItemResult.fileName(point: p, replication: r))")
            }
        }
        return out
    }

    /// The final table on standard output: per point, the shown metrics as mean ± half-width.
    static func pointTable(manifest: SweepManifest, items: [SweepItemResult], metrics: [String]) -> String {
        let r = manifest.replications
        var rows: [[String]] = [["point"] + manifest.axes.map(\.field) + metrics]
        for point in manifest.points {
            let slice = Array(items[(point.point * r)..<((point.point + 1) * r)])
            rows.append(["\(point.point)"] + point.values.map(\.plainText) + metrics.map { estimate($0, slice, manifest) })
        }
        return "\(manifest.scenarioName) sweep, \(r) replication(s) per point, seed \(manifest.seed) (common random numbers across points):\n"
            + alignedTable(rows).map { "  " + $0 }.joined(separator: "\n") + "\n"
    }

    /// "412 ms ± 18" in the unit that suits the mean.
    static func estimate(_ name: String, _ slice: [SweepItemResult], _ manifest: SweepManifest) -> String {
        let values = slice.map { item in item.metrics.first { $0.name == name }?.value ?? .nan }
        let unit = MetricTable.spec(named: name)?.unit.rawValue ?? ""
        let m = MetricSummary(name: name, unit: unit, better: "none", values: values, level: manifest.confidenceLevel)
        guard let mean = m.mean else { return "n/a" }
        let scale = HumanScale.choose(for: ReportBuilder.measuredUnit(name: name, unit: unit), magnitude: mean)
        return scale.text(mean) + (m.confidenceInterval.map { " " + $0.text(scale.number) } ?? "")
    }
}

/// Help text after the generated option list of `sweep` and `merge`.
enum SweepHelp {
    static let sweep = """

    FILE is a sweep file (JSON):
      { "scenario": "default", "replications": 5, "seed": 1, "devices": 5000,
        "set":  { "campaigns[0].warm.mode": "allPops" },
        "grid": { "campaigns[0].warm.aheadSeconds": [0, 120, 300, 600] } }
    Every point (each combination of grid values) runs the same replications with the same
    seed: points compare on common random numbers. Results in DIR: sweep.csv (one row per
    point × replication × metric), points.csv and summary.json (per point, CIs and the
    replications needed for the precision target), report.md and report.html (each --metrics
    metric against each grid axis with confidence bands), sweep.json, scenario.json, items/.
    Each finished replication is written to items/ at once: rerunning the same command
    resumes, running only the missing items. With --shard i/N the directory holds the items
    k ≡ i (mod N) and shard.json; combine the N shard directories with prestage merge.

    examples:
      prestage sweep notebooks-export/sweeps/warm-ahead.json --out results/warm-ahead
      prestage sweep notebooks-export/sweeps/warm-ahead.json --metrics tapToPaint.p95Seconds,bytes.cdnEgress
      prestage sweep notebooks-export/sweeps/warm-ahead.json --shard 0/4 --out results/warm-ahead-shard0
    """
    static let merge = """

    DIR... are the N shard directories of one sweep (prestage sweep --shard i/N). The merged
    directory is byte-identical to an unsharded run's. Incomplete shards, shards of another
    sweep, missing or duplicate shards or items are refused with the directory named.

    example:
      prestage merge results/warm-ahead-shard* --out results/warm-ahead
    """
}
