import Experiments
import Foundation
import ReportKit
import ScenarioFormat

/// `prestage plan SCENARIO --vary PATH=LO..HI [--maximize|--minimize] [--tolerance X|X%]
/// [--for PATH=v1,v2,…]`: the boundary of one knob subject to the scenario's objectives.
struct PlanCommand: ParsableCommand {
    /// Default tolerance: 5 % of the passing value.
    static let toleranceDefault = PlanTolerance.relative(0.05)
    /// Default cap on replications per value, as a multiple of the initial count.
    static let replicationsMaxFactor = 4

    /// `--vary PATH=LO..HI`.
    static let varyOption = Option.string("vary", valueName: "PATH=LO..HI", help: "the numeric field varied and its range (required)")
    /// `--maximize`.
    static let maximizeOption = Option.flag("maximize", help: "find the highest passing value (the default)")
    /// `--minimize`.
    static let minimizeOption = Option.flag("minimize", help: "find the lowest passing value")
    /// `--tolerance X|X%`.
    static let toleranceOption = Option.string("tolerance", valueName: "X|X%", help: "stop when last pass and first fail are this close (default 5%)")
    /// `--for PATH=v1,v2,…`.
    static let forOption = Option.string("for", valueName: "PATH=v1,v2,…", help: "a second knob: one answer per value (the frontier)")
    /// `--replications N`: per value to start with (at least 2), not a run's count.
    static let replicationsOption = Option.integer("replications", 2...ScenarioLimits.replicationsMax, valueName: "N",
                                                   help: "replications per value to start with (default: the scenario's, at least 2)")
    /// `--replications-max N`.
    static let replicationsMaxOption = Option.integer("replications-max", 2...ScenarioLimits.replicationsMax, valueName: "N",
                                                      help: "most replications per value while a verdict is undecided (default 4 × the initial count, or the clean replications a chance constraint needs if more)")
    /// `--emit-sweep FILE`.
    static let emitSweepOption = Option.string("emit-sweep", valueName: "FILE",
                                               help: "run nothing: write the sweep file of the next step's replications not stored yet (for a cluster)")
    /// `--no-carry`.
    static let noCarryOption = Option.flag("no-carry", help: "search every --for value from its range's ends (default: first try the previous value's bracket there)")
    /// `--for-trend better|worse`.
    static let forTrendOption = Option.string("for-trend", valueName: "better|worse",
                                              help: "the objectives get no worse (better) or no better (worse) as the --for value grows: a verdict that cannot change is carried, not run")
    /// `--provisional-midpoints`.
    static let provisionalOption = Option.flag("provisional-midpoints",
                                               help: "judge values that only steer the bisection on the first replications; only the answer's ends are topped up to full confidence")
    /// `--ingest DIR`.
    static let ingestOption = Option.string("ingest", valueName: "DIR", help: "first store the replications of merged sweep results DIR")

    static let configuration = CommandSpec(
        "plan", summary: "find the highest (or lowest) value of one knob meeting the scenario's objectives (slo), with confidence",
        positionals: ["SCENARIO"], declaring: [
            varyOption, maximizeOption, minimizeOption, toleranceOption, forOption, noCarryOption, forTrendOption, provisionalOption, replicationsOption, replicationsMaxOption,
            pilotScaleOption, pilotMarginOption,
            ScenarioOptions.seed,
            ScenarioOptions.devices,
            ScenarioOptions.set,
            OutputOptions.out.help("results directory (default results/plan-NAME); rerunning resumes"),
            OutputOptions.jobs,
            emitSweepOption, ingestOption,
            RunOptions.failOnSLO.help("exit 3 when no value in the range passes (for some --for value)"),
            RunOptions.junit.help("also write each answer (per --for value) as a JUnit case to FILE (nothing passing is a failed case)"),
        ], exitCodes: [ExitCodeDoc(.ok, "the plan ran, whatever its answer (or --emit-sweep wrote the next step)"),
                       ExitCodeDoc(.runFailed, "a replication failed or files could not be written"),
                       ExitCodeDoc(.badInput, "bad input, naming the argument (--vary, --for, --tolerance, --ingest, SCENARIO, …)"),
                       ExitCodeDoc(.gateNotPassed, "--fail-on-slo: no value in the range passes (the plan is written)"),
                       ExitCodeDoc(.interrupted, "interrupted (Ctrl-C); every finished evaluation is kept in DIR.partial/ and a rerun resumes"),
                       ExitCodeDoc(.quit, "quit (SIGQUIT, Ctrl-\\); as for 130"),
                       ExitCodeDoc(.terminated, "terminated (SIGTERM, e.g. a scheduler's time limit); as for 130")])

    static let helpFooter = """

    The scenario needs an `slo` section (docs/scenario-format.md). Each value tried runs
    replications 0..N−1 with the same seed (common random numbers); a verdict is pass when every
    objective's whole interval is on the good side (for a chance constraint, the exact bound on the
    share of replications within its threshold), fail when one is wholly on the bad side, undecided
    otherwise; undecided values get more replications up to --replications-max, and a value still
    undecided there counts as not passing. Objectives are assumed monotone in the knob. A relative
    --tolerance bisects on a log scale; the far end runs only after a value between has passed.
    With --for, each value's search first evaluates the previous value's bracket (its passing end,
    then its other end) and bisects on only where a verdict changed; --no-carry searches each from
    the range's ends. --for-trend states how the objectives move with the --for value (warming
    further ahead never adds origin load: better); the previous value's last pass (moving the way
    they improve) or first fail (the way they worsen) is then carried without replications, marked
    "carried from" in the plan. The plan does not check the trend: it is the user's statement.
    --provisional-midpoints judges a value that only steers the bisection on the first
    replications: undecided there, it counts as passing when every objective's point estimate is
    on its passing side, else as not passing. When the bracket closes its passing end is topped
    up to the stated confidence; if it then does not pass, the bisection resumes below it. The
    answer's verdicts all have the stated confidence; the plan marks the provisional values.
    --pilot-scale K first searches at 1/K of the devices with send rates, provider quotas, origin
    workers, and PoPs and shields (with an explicit topology: shared network capacities) scaled by
    1/K (docs/experiments.md lists what is and is not scaled); that bracket, widened by
    --pilot-margin on each side, is the first one evaluated at full size. Full-size runs make every verdict: a contradicted edge sends the search on over
    the whole range.
    Writes DIR/plan.json, plan.csv, plan.md, plan.html. While it works, DIR.partial/ holds an
    INCOMPLETE marker and evaluations/, one checked file per replication as it finishes, so a
    rerun (or a run after Ctrl-C) reuses it; DIR.partial/ becomes DIR/ when the plan is written.
    DIR is refused unless it is earlier plan results (docs/cli.md, ownership and completion).

    examples:
      prestage plan send-rate-vs-origin --vary campaigns[0].sendRatePerMinute=60000..3000000 --tolerance 10%
      prestage plan black-friday-plan --vary campaigns[0].sendRatePerMinute=300000..6000000 \\
          --for campaigns[0].warm.aheadSeconds=0,120,300,600
    """

    /// SCENARIO.
    let scenarioArgument: String
    /// `--vary` as given.
    let vary: String?
    /// `--maximize`.
    let maximize: Bool
    /// `--minimize`.
    let minimize: Bool
    /// `--tolerance` as given.
    let toleranceText: String?
    /// `--for` as given.
    let forText: String?
    /// `--no-carry`.
    let noCarry: Bool
    /// `--for-trend` as given.
    let forTrendText: String?
    /// `--provisional-midpoints`.
    let provisional: Bool
    /// `--replications`.
    let replications: Int?
    /// `--replications-max`.
    let replicationsMax: Int?
    /// `--pilot-scale`, `--pilot-margin` as given.
    let pilotScale: String?
    let pilotMarginText: String?
    /// `--seed`, `--devices`, `--set`.
    let scenarioOptions: ScenarioOptions
    /// `--out`, `--jobs`.
    let output: OutputOptions
    /// `--emit-sweep`.
    let emitSweep: String?
    /// `--ingest`.
    let ingest: String?
    /// `--fail-on-slo`, `--junit`.
    let gate: GateOptions

    init(parsed: ParsedCommand) {
        scenarioArgument = parsed.positionals[0]
        vary = parsed[Self.varyOption]
        maximize = parsed[Self.maximizeOption]
        minimize = parsed[Self.minimizeOption]
        toleranceText = parsed[Self.toleranceOption]
        forText = parsed[Self.forOption]
        noCarry = parsed[Self.noCarryOption]
        forTrendText = parsed[Self.forTrendOption]
        provisional = parsed[Self.provisionalOption]
        replications = parsed[Self.replicationsOption]
        replicationsMax = parsed[Self.replicationsMaxOption]
        pilotScale = parsed[Self.pilotScaleOption]
        pilotMarginText = parsed[Self.pilotMarginOption]
        scenarioOptions = ScenarioOptions(parsed)
        output = OutputOptions(parsed)
        emitSweep = parsed[Self.emitSweepOption]
        ingest = parsed[Self.ingestOption]
        gate = GateOptions(parsed)
    }

    func execute(environment env: CommandEnvironment) -> ExitCode {
        func bad(_ message: String) -> ExitCode {
            env.standardError.write("prestage plan: \(message)\n")
            return .badInput
        }
        let library = ScenarioLibrary(directories: env.scenarioDirectories)
        // --replications is the plan's own count per value, not the scenario's.
        let flags = ScenarioLoader.FlagOverrides(devices: scenarioOptions.devices, seed: scenarioOptions.seed)
        let sets = scenarioOptions.sets
        let argument = scenarioArgument
        let load = { (extra: [String]) throws(ScenarioLoadError) -> ScenarioFile in
            try ScenarioLoader.load(argument, library: library, set: sets + extra, flags: flags).scenario
        }
        let base: ScenarioFile
        do { base = try load([]) } catch { return bad(error.description) }
        guard !base.slo.isEmpty else {
            return bad("SCENARIO: \(base.name) has no objectives; add an \"slo\" section (docs/scenario-format.md)")
        }
        guard let varyText = vary else { return bad("--vary: required (PATH=LO..HI)") }
        if maximize && minimize { return bad("--maximize and --minimize: give at most one") }
        let knob: ScenarioKnob, forKnob: ScenarioKnobList?
        do {
            knob = try ScenarioKnob.parse(varyText, argument: "--vary", load: load)
            forKnob = try forText.map { text throws(ScenarioKnob.Problem) in
                try ScenarioKnobList.parse(text, argument: "--for", load: load)
            }
        } catch { return bad(error.description) }
        if let forKnob, forKnob.path == knob.path { return bad("--for: \(forKnob.path) is the knob --vary varies") }
        var forTrend: PlanForTrend? = nil
        if let text = forTrendText {
            guard let t = PlanForTrend(rawValue: text) else {
                return bad("--for-trend: expected \(PlanForTrend.allCases.map(\.rawValue).joined(separator: " or ")), found \"\(text)\"")
            }
            guard forKnob != nil else { return bad("--for-trend: needs --for (the trend is along the --for knob)") }
            guard !noCarry else { return bad("--for-trend: carries verdicts from the previous --for value; --no-carry asks for none") }
            forTrend = t
        }
        var tolerance = Self.toleranceDefault
        if let text = toleranceText {
            guard let t = PlanTolerance.parse(text) else { return bad("--tolerance: expected a number > 0 or a percentage (e.g. 5000 or 10%), found \"\(text)\"") }
            tolerance = t
        }
        if let problem = tolerance.problem(lower: knob.lower, upper: knob.upper) { return bad("--tolerance: \(problem)") }
        let initial = max(2, replications ?? base.run.replications)
        // The default cap leaves room for a chance constraint to be shown to pass by clean replications.
        let chanceCap = base.slo.compactMap(\.cleanReplicationsToPass).max() ?? 0
        let cap = replicationsMax ?? min(ScenarioLimits.replicationsMax, max(initial * Self.replicationsMaxFactor, chanceCap))
        guard cap >= initial else { return bad("--replications-max: expected at least the initial \(initial), found \(cap)") }
        let goal: PlanGoal = minimize ? .minimize : .maximize
        let emitPath = emitSweep
        if let emitPath, let problem = OutputFilePath.problem(option: "emit-sweep", path: emitPath) { return bad(problem) }
        if let problem = gate.junitProblem { return bad(problem) }
        let piloting: (pilot: ScaledPilot, margin: Double)?
        switch Self.pilotSettings(scale: pilotScale, marginText: pilotMarginText, base: base, emitting: emitPath != nil, ingesting: ingest != nil) {
        case let .success(p): piloting = p
        case let .failure(e): return bad(e.message)
        }
        let (parent, name) = output.location(resultsParent: env.resultsParent) { "plan-\(base.name)" }
        let results: PlanResults
        do {
            // This plan owns DIR and DIR.partial from here on (a second plan is refused), and a
            // DIR that is not earlier plan results is refused now, before any work.
            results = try PlanResults.open(in: parent, name: name, owner: env.owner())
        } catch { return bad("--out: \(error)") }
        let directory = results.directory, out = directory.finalURL
        let interrupt = env.handlesInterrupts ? InterruptGuard(directory: directory, output: env.standardError, command: "prestage plan") : nil
        defer { interrupt?.remove() }
        let jobs = output.jobs ?? env.processorCount
        let err = env.standardError
        let evaluator = PlanEvaluator(directory: results.evaluationsURL, jobs: jobs) { err.write($0) }
        let frames: [[String]] = forKnob.map { f in f.values.map { [ScenarioKnob.assignment(f.path, $0)] } } ?? [[]]
        if let ingest {
            do {
                let count = try PlanSweepBridge.ingest(URL(fileURLWithPath: ingest), knobPath: knob.path, candidates: { value in
                    frames.compactMap { frame in
                        let assignments = frame + [ScenarioKnob.assignment(knob.path, value)]
                        return (try? load(assignments)).map { (assignments, $0) }
                    }
                }, into: evaluator)
                env.standardError.write("prestage plan: --ingest: stored \(count) replications from \(ingest)\n")
            } catch {
                RunCommand.markIncomplete(directory, reason: "--ingest \(ingest) was refused: \(error)")
                return bad("--ingest: \(ingest): \(error)")
            }
        }
        evaluator.emitOnly = emitPath != nil
        var search = PlanSearch(lower: knob.lower, upper: knob.upper, isInteger: knob.isInteger, goal: goal, tolerance: tolerance,
                                initialReplications: initial, maxReplications: cap)
        search.replicationStep = base.replicationsPerDraw
        search.provisional = provisional
        env.standardError.write("prestage plan: \(base.name): \(goal.rawValue) \(knob.path) in \(ScenarioKnob.numberText(knob.lower))…\(ScenarioKnob.numberText(knob.upper)), "
                                + "\(base.world.population.devices) devices, \(initial)–\(cap) replications per value, seed \(base.run.seed) → \(out.path)\n")
        var frontier: [PlanFrontierPoint] = []
        // Each --for value's search starts from the previous value's bracket, evaluated afresh here.
        var previous: PlanAnswer? = nil, previousPilot: PlanAnswer? = nil
        // With --for-trend: the previous value's evaluations, for the verdicts it lends the next.
        var previousPoint: PlanFrontierPoint? = nil
        // Pilot replications are kept next to the full-size ones (their scenario hash differs), counted apart.
        let pilotEvaluator = PlanEvaluator(directory: results.evaluationsURL, jobs: jobs) { err.write($0) }
        for forValue in forKnob.map({ $0.values.map { Optional($0) } }) ?? [nil] {
            let frame = forValue.map { [ScenarioKnob.assignment(forKnob?.path ?? "", $0)] } ?? []
            // The objectives at `value` over replications 0..<n, at full size or as the pilot.
            func evaluate(_ pilot: ScaledPilot?) -> (Double, Int) throws(PlanCommandFailure) -> SLOReport {
                { (value: Double, n: Int) throws(PlanCommandFailure) -> SLOReport in
                    var scenario: ScenarioFile, assignments = frame + [ScenarioKnob.assignment(knob.path, value)]
                    do { scenario = try load(assignments) } catch let e as ScenarioLoadError { throw .badInput(e.description) } catch { throw .badInput("\(error)") }
                    if let pilot {
                        scenario = pilot.scenario(scenario)
                        assignments.append("--pilot-scale \(pilot.scale)")
                    }
                    do {
                        let report = try (pilot == nil ? evaluator : pilotEvaluator).report(scenario, assignments: assignments, count: n)
                        err.write("  " + (pilot.map { "pilot 1/\($0.scale) " } ?? "") + (forValue.map { "\(forKnob?.path ?? "")=\(ScenarioKnob.numberText($0)) " } ?? "")
                                  + "\(knob.path)=\(ScenarioKnob.numberText(value)): \(n) replications → \(report.verdict.rawValue)"
                                  + (report.binding.map { " (\($0.objective.metric) mean \($0.mean.map { TextNumber.format($0, significant: 4) } ?? "—"))" } ?? "") + "\n")
                        return report
                    } catch {
                        if let n = (error as? PlanEvaluator.Failure)?.replicationsNeeded { throw .needsRun(assignments, n) }
                        throw .runFailed("\(error)")
                    }
                }
            }
            var verdicts = CarriedVerdicts()
            if let forTrend, let p = previousPoint, let from = p.forValue, let to = forValue {
                verdicts = PlanSearch.carriedVerdicts(answer: p.answer, evaluations: p.evaluations, from: from, to: to, trend: forTrend)
            }
            do throws(PlanCommandFailure) {
                let evaluations: [PlanEvaluation], answer: PlanAnswer, pilotRecord: PlanPilotRecord?
                if let piloting {
                    let r = try search.runPiloted(previousPilot: noCarry ? nil : previousPilot, verdicts: verdicts, scale: piloting.pilot.scale,
                                                  margin: piloting.margin, pilot: evaluate(piloting.pilot), full: evaluate(nil))
                    (evaluations, answer, pilotRecord) = (r.evaluations, r.answer, r.pilot)
                    previousPilot = r.pilot.answer
                } else {
                    (evaluations, answer) = try search.run(from: noCarry ? nil : previous, verdicts: verdicts, evaluate(nil))
                    pilotRecord = nil
                }
                previous = answer
                var point = PlanFrontierPoint(forValue: forValue, evaluations: evaluations, answer: answer,
                                              replicationsUsed: evaluations.reduce(0) { $0 + $1.replicationsRun },
                                              gridReplications: search.gridReplications(answer: answer))
                point.pilot = pilotRecord
                frontier.append(point)
                previousPoint = point
            } catch {
                switch error {
                case let .badInput(m):
                    RunCommand.markIncomplete(directory, reason: "The plan stopped on bad input: \(m)")
                    return bad(m)
                case let .needsRun(assignments, n):
                    guard let emitPath else { return .runFailed }
                    RunCommand.markIncomplete(directory, reason: "The plan waits for the replications of its next step (\(assignments.joined(separator: " ")), "
                                              + "\(n) replications, written to \(emitPath)); rerun it with --ingest MERGED_DIR.")
                    let scenarioPath = (try? ScenarioLoader.load(argument, library: library).url.path) ?? argument
                    do {
                        let data = try PlanSweepBridge.sweepFile(scenarioPath: scenarioPath, assignments: sets + assignments, count: n,
                                                                 seed: base.run.seed, devices: scenarioOptions.devices)
                        try AtomicWriter.write(data, to: URL(fileURLWithPath: emitPath))
                    } catch {
                        env.standardError.write("prestage plan: --emit-sweep: cannot write \(emitPath): \(error)\n")
                        return .runFailed
                    }
                    env.standardOutput.write("next step: \(assignments.joined(separator: " ")), \(n) replications → \(emitPath)\n"
                                             + "run it (e.g. prestage sweep \(emitPath) --shard i/N, then prestage merge), then rerun this plan with --ingest MERGED_DIR\n")
                    return .ok
                case let .runFailed(m):
                    RunCommand.markIncomplete(directory, reason: "The plan failed: \(m). Rerun the same command to resume.")
                    env.standardError.write("prestage plan: \(m)\nprestage plan: finished replications are kept in \(results.evaluationsURL.path); rerun to resume\n")
                    return .runFailed
                }
            }
        }
        let hash = (try? base.hash()) ?? ""
        // --replications is the plan's own count per value, not a change to the scenario.
        let overrides = scenarioOptions.overridesText(includingReplications: false)
        let asWritten = (try? ScenarioLoader.load(argument, library: library).scenario)?.world.population.devices ?? base.world.population.devices
        var document = PlanDocument(toolVersion: ToolVersion.text, scenarioName: base.name, question: base.question, scenarioHash: hash,
                                    seed: base.run.seed, devices: base.world.population.devices, scenarioDevices: asWritten, overrides: overrides, knob: knob, goal: goal, tolerance: tolerance,
                                    forKnob: forKnob, objectives: base.slo, initialReplications: initial, maxReplications: cap, frontier: frontier)
        document.pilotScale = piloting?.pilot.scale
        document.forTrend = forTrend
        document.pilotMargin = piloting?.margin
        document.provisional = provisional ? true : nil
        let commit = {
            try results.commit(document: try CanonicalJSON.encode(document), csv: Data(document.csv.utf8),
                               markdown: Data(MarkdownRenderer().render(document.report).utf8), html: Data(HTMLRenderer().render(document.report).utf8))
        }
        do {
            _ = try interrupt.map { try $0.committing(commit) } ?? commit()
        } catch {
            env.standardError.write("prestage plan: cannot write the plan: \(error)\n")
            RunCommand.markIncomplete(directory, reason: "Writing the plan failed: \(error)")
            return .runFailed
        }
        let used = frontier.reduce(0) { $0 + $1.replicationsUsed }, grid = frontier.reduce(0) { $0 + $1.gridReplications }
        // The table (the answers as searched, and the replications), then the decision as the report leads with it.
        env.standardOutput.write("\(base.name): \(base.question)\n" + document.answerLines.map { "  " + $0 + "\n" }.joined()
                                 + "  replications: \(used) used (\(evaluator.replicationsRun) run now, \(evaluator.replicationsReused) reused); a full grid at the same resolution: \(grid)\n"
                                 + (piloting.map { p in
                                     "  pilot replications (1/\(p.pilot.scale), \(TextFormat.count(base.world.population.devices / p.pilot.scale)) devices): "
                                         + "\(frontier.reduce(0) { $0 + ($1.pilot?.replications ?? 0) }) used (\(pilotEvaluator.replicationsRun) run now, \(pilotEvaluator.replicationsReused) reused)\n"
                                 } ?? "")
                                 + Self.decisionLines(document, planPath: out.appendingPathComponent("plan.html").path).map { $0 + "\n" }.joined())
        if !gate.writeJUnit(document.junit, command: "plan", environment: env) { return .runFailed }
        if gate.failOn, !document.everyAnswerPasses { return .gateNotPassed }
        return .ok
    }
}

/// Why a plan stopped early.
enum PlanCommandFailure: Error {
    case badInput(String)
    case runFailed(String)
    /// `--emit-sweep`: these assignments need replications 0..<n that are not stored.
    case needsRun([String], Int)
}
