import Experiments
import Foundation

/// A sub-command of `prestage` as a type: one declaration (`configuration`) from which the command
/// line is parsed and help, completion scripts and the man page are generated; its options read
/// once, by `init(parsed:)`, into typed fields; and what it does (`execute`).
///
/// Options are declared as `Option` values (name, kind, value name, help) and read through the
/// same values (`parsed[ScenarioOptions.devices]`), so a command never names an option by text
/// when it reads it. `CommandLineTests` checks that every declared option of every command changes
/// the command it builds, i.e. is read into a field.
protocol ParsableCommand: Equatable, Sendable {
    /// The command's table entry: name, summary, positionals, options in help order, exit codes.
    static var configuration: CommandSpec { get }
    /// Text after the generated help (and in the man page); empty for none.
    static var helpFooter: String { get }
    /// Reads the positionals and every declared option of `parsed` (a command line of this command).
    init(parsed: ParsedCommand)
    /// Runs the command.
    func execute(environment: CommandEnvironment) -> ExitCode
}

extension ParsableCommand {
    /// The pointer to the documentation most commands end their help with.
    static var helpFooter: String { PrestageCLI.documentationFooter }
}

/// Anything that declares one `--name` option of a command.
protocol OptionDeclaration: Sendable {
    /// The option's declaration (name, kind, value name, help).
    var spec: OptionSpec { get }
}

extension OptionSpec: OptionDeclaration {
    var spec: OptionSpec { self }
}

/// One declared option and how its value is read: the only place an option's name is written.
/// `Value` is what a command gets: `Bool` for a flag, `String?`/`Int?`/`UInt64?` for a value that
/// may be absent, `[String]` for a repeatable option.
struct Option<Value: Sendable>: OptionDeclaration {
    /// The declaration.
    let spec: OptionSpec
    /// Reads the value of option `name` from a parsed command line.
    private let read: @Sendable (ParsedCommand, String) -> Value

    private init(_ spec: OptionSpec, read: @escaping @Sendable (ParsedCommand, String) -> Value) {
        self.spec = spec
        self.read = read
    }

    /// The option's value in `parsed` (absent: nil, false or empty).
    func value(in parsed: ParsedCommand) -> Value { read(parsed, spec.name) }

    /// The same option (name, kind, value name) with a command's own help text.
    func help(_ text: String) -> Option {
        Option(OptionSpec(spec.name, spec.kind, valueName: spec.valueName, repeatable: spec.repeatable, help: text), read: read)
    }
}

extension Option where Value == Bool {
    /// A switch without a value (`--force-memory`).
    static func flag(_ name: String, help: String) -> Option {
        Option(OptionSpec(name, .flag, help: help)) { $0.flag($1) }
    }
}

extension Option where Value == String? {
    /// A text value given at most once (`--out DIR`).
    static func string(_ name: String, valueName: String, help: String) -> Option {
        Option(OptionSpec(name, .string, valueName: valueName, help: help)) { $0.string($1) }
    }
}

extension Option where Value == [String] {
    /// A text value that may be given several times, in command-line order (`--set PATH=VALUE`).
    static func strings(_ name: String, valueName: String, help: String) -> Option {
        Option(OptionSpec(name, .string, valueName: valueName, repeatable: true, help: help)) { $0.strings($1) }
    }
}

extension Option where Value == Int? {
    /// A decimal integer within `range` (`--replications N`).
    static func integer(_ name: String, _ range: ClosedRange<Int>, valueName: String, help: String) -> Option {
        Option(OptionSpec(name, .integer(range), valueName: valueName, help: help)) { $0.integer($1) }
    }
}

extension Option where Value == UInt64? {
    /// A decimal integer in 0...UInt64.max (`--seed S`).
    static func unsignedInteger(_ name: String, valueName: String, help: String) -> Option {
        Option(OptionSpec(name, .unsignedInteger, valueName: valueName, help: help)) { $0.unsignedInteger($1) }
    }
}

extension ParsedCommand {
    /// The value of a declared option.
    subscript<Value>(_ option: Option<Value>) -> Value { option.value(in: self) }
}

extension CommandSpec {
    /// A command whose options are declarations (`Option` values), in help order.
    init(_ name: String, summary: String, positionals: [String] = [], declaring options: [any OptionDeclaration], hidden: Bool = false,
         exitCodes: [ExitCodeDoc] = [ExitCodeDoc(.ok), ExitCodeDoc(.badInput)], positionalChoices: [String] = []) {
        self.init(name, summary: summary, positionals: positionals, options: options.map(\.spec), hidden: hidden,
                  exitCodes: exitCodes, positionalChoices: positionalChoices)
    }

    /// Whether the last positional takes any number of arguments (`validate FILE...`).
    var isVariadic: Bool { positionals.last?.hasSuffix("...") ?? false }
}
