import Experiments
import Foundation
import ReportKit
import ScenarioFormat

/// `prestage sensitivity SCENARIO --factor PATH=LO..HI … --metric M …`: which inputs move the
/// metrics most (Morris screening, a tornado, Sobol indices on the top factors).
struct SensitivityCommand: ParsableCommand {
    static let factorOption = Option.strings("factor", valueName: "PATH=LO..HI", help: "a numeric field and its range (at least one; repeat for more)")
    static let metricOption = Option.strings("metric", valueName: "M", help: "a metric of the result table (at least one; repeat for more; the first ranks the Sobol step)")
    static let trajectoriesOption = Option.integer("trajectories", 2...1000, valueName: "R", help: "Morris trajectories (default 10)")
    static let levelsOption = Option.integer("levels", 2...64, valueName: "P", help: "Morris grid levels, even (default 4)")
    static let sobolSamplesOption = Option.integer("sobol-samples", 0...100_000, valueName: "N", help: "Saltelli base samples N; 0 skips the Sobol step (default 32)")
    static let sobolFactorsOption = Option.integer("sobol-factors", 1...100, valueName: "K", help: "factors (highest μ* first) the Sobol step keeps (default 3)")
    static let replicationsOption = Option.integer("replications", 2...ScenarioLimits.replicationsMax, valueName: "N",
                                                   help: "replications per design point (default: the scenario's, at least 2)")
    static let bootstrapOption = Option.integer("bootstrap", 2...100_000, valueName: "B", help: "bootstrap resamples per interval (default 500)")
    static let confidenceOption = Option.string("confidence", valueName: "C", help: "the intervals' level in (0, 1) (default 0.95)")
    /// `--emit-sweep FILE`.
    static let emitSweepOption = Option.string("emit-sweep", valueName: "FILE",
                                               help: "run nothing: write the design points whose replications are not stored yet as a sweep file (for a cluster)")
    /// `--ingest DIR`.
    static let ingestOption = Option.string("ingest", valueName: "DIR", help: "first store the replications of merged sweep results DIR")

    static let configuration = CommandSpec(
        "sensitivity", summary: "rank which inputs move a metric most: Morris screening, a tornado and Sobol indices, with intervals",
        positionals: ["SCENARIO"], declaring: [
            factorOption, metricOption, trajectoriesOption, levelsOption, sobolSamplesOption, sobolFactorsOption, replicationsOption,
            bootstrapOption, confidenceOption, emitSweepOption, ingestOption,
            ScenarioOptions.seed,
            ScenarioOptions.devices,
            ScenarioOptions.set,
            OutputOptions.out.help("results directory (default results/sensitivity-NAME); rerunning resumes"),
            OutputOptions.jobs,
        ], exitCodes: [ExitCodeDoc(.ok, "the study ran and its files are written (or --emit-sweep wrote the next step)"),
                       ExitCodeDoc(.runFailed, "a replication failed or files could not be written"),
                       ExitCodeDoc(.badInput, "bad input, naming the argument (--factor, --metric, SCENARIO, …)"),
                       ExitCodeDoc(.interrupted, "interrupted (Ctrl-C); every finished replication is kept in DIR.partial/ and a rerun resumes"),
                       ExitCodeDoc(.quit, "quit (SIGQUIT, Ctrl-\\); as for 130"),
                       ExitCodeDoc(.terminated, "terminated (SIGTERM, e.g. a scheduler's time limit); as for 130")])

    static let helpFooter = """

    Morris screening: R trajectories of k + 1 points on a P-level grid give each factor R
    elementary effects (the metric's change per whole range); μ* is their mean absolute value (with
    a bootstrap interval), σ their spread (interactions, non-linearity). The tornado runs each
    factor at its low and high end with the others at their midpoints (2k + 1 points, Student-t
    intervals over replications). The Sobol step takes the K factors with the highest μ* of the
    first --metric and runs Saltelli's design, N (K + 2) points: S1 is a factor's share of the
    variance alone, ST with its interactions. Every design point runs replications 0..N−1 with the
    same seed (common random numbers), so a factor that cannot reach a metric has μ* = 0 exactly.
    Cost: R (k + 1) + 2k + 1 + N (K + 2) design points, times --replications.
    Writes DIR/sensitivity.json, .csv, .md, .html; DIR.partial/evaluations/ holds one checked file
    per replication as it finishes, so a rerun (or a run after Ctrl-C) reuses it.
    On a cluster: --emit-sweep FILE runs nothing and writes the design points not stored yet as a
    sweep file (the screening first, then the Sobol step); run it as sweep shards, merge, and rerun
    with --ingest MERGED_DIR --emit-sweep FILE until the study is written.

    examples:
      prestage sensitivity black-friday-plan --devices 20000 --factor campaigns[0].sendRatePerMinute=300000..3000000 \\
          --factor infra.origin.workers=16..64 --metric origin.rejected503
    """

    let scenarioArgument: String
    let factorTexts: [String]
    let metricNames: [String]
    let trajectories: Int?
    let levels: Int?
    let sobolSamples: Int?
    let sobolFactors: Int?
    let replications: Int?
    let bootstrap: Int?
    let confidenceText: String?
    let emitSweep: String?
    let ingest: String?
    let scenarioOptions: ScenarioOptions
    let output: OutputOptions

    init(parsed: ParsedCommand) {
        scenarioArgument = parsed.positionals[0]
        factorTexts = parsed[Self.factorOption]
        metricNames = parsed[Self.metricOption]
        trajectories = parsed[Self.trajectoriesOption]
        levels = parsed[Self.levelsOption]
        sobolSamples = parsed[Self.sobolSamplesOption]
        sobolFactors = parsed[Self.sobolFactorsOption]
        replications = parsed[Self.replicationsOption]
        bootstrap = parsed[Self.bootstrapOption]
        confidenceText = parsed[Self.confidenceOption]
        emitSweep = parsed[Self.emitSweepOption]
        ingest = parsed[Self.ingestOption]
        scenarioOptions = ScenarioOptions(parsed)
        output = OutputOptions(parsed)
    }

    func execute(environment env: CommandEnvironment) -> ExitCode {
        func bad(_ message: String) -> ExitCode {
            env.standardError.write("prestage sensitivity: \(message)\n")
            return .badInput
        }
        let library = ScenarioLibrary(directories: env.scenarioDirectories)
        let flags = ScenarioLoader.FlagOverrides(devices: scenarioOptions.devices, seed: scenarioOptions.seed)
        let sets = scenarioOptions.sets, argument = scenarioArgument
        let load = { (extra: [String]) throws(ScenarioLoadError) -> ScenarioFile in
            try ScenarioLoader.load(argument, library: library, set: sets + extra, flags: flags).scenario
        }
        let base: ScenarioFile
        do { base = try load([]) } catch { return bad(error.description) }
        guard !factorTexts.isEmpty else { return bad("--factor: required (PATH=LO..HI), at least one") }
        var factors: [ScenarioKnob] = []
        for text in factorTexts {
            do { factors.append(try ScenarioKnob.parse(text, argument: "--factor", load: load)) } catch {
                // Name the argument as given, so a range problem says which factor it is.
                return bad("--factor \(text): \(error.message)")
            }
            if factors.dropLast().contains(where: { $0.path == factors.last?.path }) {
                return bad("--factor: \(factors.last?.path ?? "") is given twice; give each field once")
            }
        }
        guard !metricNames.isEmpty else { return bad("--metric: required (a metric of the result table, e.g. origin.rejected503), at least one") }
        for m in metricNames {
            if let issue = ServiceLevelObjective.metricIssue(m, in: base.world) { return bad("--metric: expected \(issue.expected), found \(issue.found)") }
        }
        if Set(metricNames).count != metricNames.count { return bad("--metric: a metric is given twice; give each once") }
        let p = levels ?? 4
        guard p % 2 == 0 else { return bad("--levels: expected an even number of levels (so every level is equally likely), found \(p)") }
        var confidence = 0.95
        if let text = confidenceText {
            guard let c = Double(text), c > 0, c < 1 else { return bad("--confidence: expected a number in (0, 1), e.g. 0.95, found \"\(text)\"") }
            confidence = c
        }
        let settings = SensitivitySettings(trajectories: trajectories ?? 10, levels: p, sobolSamples: sobolSamples ?? 32,
                                           sobolFactors: min(sobolFactors ?? 3, factors.count),
                                           replications: max(2, replications ?? base.run.replications), bootstrap: bootstrap ?? 500, confidence: confidence)
        if settings.sobolSamples == 1 { return bad("--sobol-samples: expected 0 (no Sobol step) or at least 2, found 1") }
        let study = SensitivityStudy(factors: factors, metrics: metricNames, settings: settings, seed: base.run.seed)
        if let emitSweep, let problem = OutputFilePath.problem(option: "emit-sweep", path: emitSweep) { return bad(problem) }
        let (parent, name) = output.location(resultsParent: env.resultsParent) { "sensitivity-\(base.name)" }
        let results: SensitivityResults
        do { results = try SensitivityResults.open(in: parent, name: name, owner: env.owner()) } catch { return bad("--out: \(error)") }
        let directory = results.directory, out = directory.finalURL
        let interrupt = env.handlesInterrupts ? InterruptGuard(directory: directory, output: env.standardError, command: "prestage sensitivity") : nil
        defer { interrupt?.remove() }
        let err = env.standardError
        let evaluator = PlanEvaluator(directory: results.evaluationsURL, jobs: output.jobs ?? env.processorCount) { err.write($0) }
        let n = settings.replications
        if let ingest {
            do {
                let count = try PlanSweepBridge.ingest(URL(fileURLWithPath: ingest), paths: factors.map(\.path), load: { try? load($0) }, into: evaluator)
                env.standardError.write("prestage sensitivity: --ingest: stored \(count) replications from \(ingest)\n")
            } catch {
                RunCommand.markIncomplete(directory, reason: "--ingest \(ingest) was refused: \(error)")
                return bad("--ingest: \(ingest): \(error)")
            }
        }
        evaluator.emitOnly = emitSweep != nil
        // --emit-sweep: the design points (in the order the study asks for them) whose
        // replications are not stored; each answers zeros meanwhile, so the study goes on to
        // name every missing point of the step.
        var calls = 0
        var missing: [(call: Int, assignments: [String])] = []
        env.standardError.write("prestage sensitivity: \(base.name): \(factors.count) factors, \(metricNames.joined(separator: ", ")); "
                                + "\(study.designPoints) design points × \(n) replications, \(TextFormat.count(base.world.population.devices)) devices, seed \(base.run.seed) → \(out.path)\n")
        let studyResults: [SensitivityMetricResult]
        do throws(SensitivityFailure) {
            studyResults = try study.run(evaluate: { (assignments: [String]) throws(SensitivityFailure) -> [[String: Double]] in
                let scenario: ScenarioFile
                do { scenario = try load(assignments) } catch let e as ScenarioLoadError {
                    throw .badInput("the design point \(assignments.joined(separator: " ")) was refused: \(e.description)")
                } catch { throw .badInput("the design point \(assignments.joined(separator: " ")) was refused: \(error)") }
                calls += 1
                do { return try evaluator.metrics(of: scenario, assignments: assignments, count: n) } catch let e as PlanEvaluator.Failure {
                    guard e.replicationsNeeded != nil else { throw .runFailed(e.description) }
                    missing.append((calls - 1, assignments))
                    return [[String: Double]](repeating: Dictionary(uniqueKeysWithValues: metricNames.map { ($0, 0.0) }), count: n)
                } catch { throw .runFailed("\(error)") }
            }, progress: { done, total in
                if done == total || done % 25 == 0 { err.write("  \(done)/\(total) design points\n") }
            })
        } catch {
            switch error {
            case let .badInput(m):
                RunCommand.markIncomplete(directory, reason: "The study stopped on bad input: \(m)")
                return bad(m)
            case let .runFailed(m):
                RunCommand.markIncomplete(directory, reason: "The study failed: \(m). Rerun the same command to resume.")
                env.standardError.write("prestage sensitivity: \(m)\nprestage sensitivity: finished replications are kept in \(results.evaluationsURL.path); rerun to resume\n")
                return .runFailed
            }
        }
        if let emitPath = emitSweep, !missing.isEmpty {
            // The Sobol step's factors follow from the screening: while a screening point is
            // missing, only the screening's missing points are the next step.
            let screening = missing.filter { $0.call < study.screeningPoints }
            var points: [[String]] = []
            for m in screening.isEmpty ? missing : screening where !points.contains(m.assignments) { points.append(m.assignments) }
            let stage = screening.isEmpty ? "the Sobol step" : "the screening (Morris and the tornado)"
            RunCommand.markIncomplete(directory, reason: "The study waits for the replications of \(stage): \(points.count) design points, "
                                      + "\(n) replications each, written to \(emitPath); rerun it with --ingest MERGED_DIR.")
            let scenarioPath = (try? ScenarioLoader.load(argument, library: library).url.path) ?? argument
            do {
                let data = try PlanSweepBridge.sweepFile(scenarioPath: scenarioPath, fixed: sets, points: points, count: n,
                                                         seed: base.run.seed, devices: scenarioOptions.devices)
                try AtomicWriter.write(data, to: URL(fileURLWithPath: emitPath))
            } catch {
                env.standardError.write("prestage sensitivity: --emit-sweep: cannot write \(emitPath): \(error)\n")
                return .runFailed
            }
            env.standardOutput.write("next step: \(stage), \(points.count) design points × \(n) replications → \(emitPath)\n"
                                     + "run it (e.g. prestage sweep \(emitPath) --shard i/N, then prestage merge), then rerun this study with --ingest MERGED_DIR\n")
            return .ok
        }
        let document = SensitivityDocument(toolVersion: ToolVersion.text, scenarioName: base.name, question: base.question, scenarioHash: (try? base.hash()) ?? "",
                                           seed: base.run.seed, devices: base.world.population.devices,
                                           overrides: scenarioOptions.overridesText(includingReplications: false),
                                           factors: factors, settings: settings, designPoints: study.designPoints, results: studyResults)
        let commit = {
            try results.commit(document: try CanonicalJSON.encode(document), csv: Data(document.csv.utf8),
                               markdown: Data(MarkdownRenderer().render(document.report).utf8), html: Data(HTMLRenderer().render(document.report).utf8))
        }
        do {
            _ = try interrupt.map { try $0.committing(commit) } ?? commit()
        } catch {
            env.standardError.write("prestage sensitivity: cannot write the study: \(error)\n")
            RunCommand.markIncomplete(directory, reason: "Writing the study failed: \(error)")
            return .runFailed
        }
        env.standardOutput.write("\(base.name): which inputs move \(metricNames.joined(separator: ", ")) most\n"
                                 + document.summaryLines.map { "  " + $0 + "\n" }.joined()
                                 + "  replications: \(document.replications) (\(evaluator.replicationsRun) run now, \(evaluator.replicationsReused) reused)\n"
                                 + "sensitivity: \(out.appendingPathComponent("sensitivity.html").path)\n")
        return .ok
    }
}
