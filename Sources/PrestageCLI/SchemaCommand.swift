import Foundation
import ScenarioFormat

/// `prestage schema KIND`: the JSON Schema of scenario or sweep files, generated from the readers'
/// declarations (the committed copies are docs/schema/KIND.schema.json).
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandSpec(
        "schema", summary: "print the JSON Schema of scenario or sweep files (for editors; generated from the readers)",
        positionals: ["KIND"], options: [],
        exitCodes: [ExitCodeDoc(.ok), ExitCodeDoc(.runFailed, "a declaration has no schema or no doc text (a bug; nothing is printed)"),
                    ExitCodeDoc(.badInput, "an unknown KIND")],
        positionalChoices: ScenarioSchema.Kind.allCases.map(\.rawValue))

    static let helpFooter = """

    KIND is scenario or sweep. The committed copies, docs/schema/scenario.schema.json and
    docs/schema/sweep.schema.json, are this output (a test keeps them so); bundled files name
    theirs in a top-level "$schema" key, which editors such as VS Code follow to complete and check.

    examples:
      prestage schema scenario > docs/schema/scenario.schema.json
      prestage schema sweep > docs/schema/sweep.schema.json
    """

    /// KIND as given.
    let kindName: String

    init(parsed: ParsedCommand) { kindName = parsed.positionals[0] }

    func execute(environment env: CommandEnvironment) -> ExitCode {
        let names = ScenarioSchema.Kind.allCases.map(\.rawValue)
        guard let kind = ScenarioSchema.Kind(rawValue: kindName) else {
            env.standardError.write("prestage schema: expected one of \(names.joined(separator: ", ")), found \(DisplayText.quoted(kindName))\n")
            return .badInput
        }
        let (text, gaps) = ScenarioSchema.generate(kind)
        guard gaps.isEmpty else {
            env.standardError.write(gaps.map { "prestage schema: \($0)\n" }.joined())
            return .runFailed
        }
        env.standardOutput.write(text)
        return .ok
    }
}
