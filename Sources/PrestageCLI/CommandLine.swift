import Experiments
import Foundation
import ScenarioFormat

/// The type of an option's value.
enum OptionKind: Sendable, Equatable {
    /// A switch without a value (`--dry-run`).
    case flag
    /// Any text (`--out DIR`).
    case string
    /// A decimal integer within `range` (`--replications N`).
    case integer(ClosedRange<Int>)
    /// A decimal integer in 0...UInt64.max (`--seed S`).
    case unsignedInteger
}

/// One `--name` option of a command.
struct OptionSpec: Sendable, Equatable {
    /// Name without the leading dashes.
    let name: String
    /// The value's type.
    let kind: OptionKind
    /// Placeholder in help text ("DIR", "N").
    let valueName: String
    /// Whether the option may be given more than once (`--set` is).
    let repeatable: Bool
    /// One-line help.
    let help: String

    /// An option; see the properties.
    init(_ name: String, _ kind: OptionKind, valueName: String = "VALUE", repeatable: Bool = false, help: String) {
        self.name = name
        self.kind = kind
        self.valueName = valueName
        self.repeatable = repeatable
        self.help = help
    }
}

/// One sub-command (`prestage run SCENARIO --out DIR`).
struct CommandSpec: Sendable, Equatable {
    /// The word that selects the command.
    let name: String
    /// One-line summary for the command list.
    let summary: String
    /// The command's options, in help order.
    let options: [OptionSpec]
    /// Names of the positional arguments, all required, in order ("SCENARIO").
    let positionals: [String]
    /// The exit codes the command can return, listed in its help and the man page.
    let exitCodes: [ExitCodeDoc]
    /// Fixed values the first positional takes (for completion), e.g. `completion SHELL`: bash, zsh, fish.
    let positionalChoices: [String]
    /// Left out of the command list (internal entries such as `bench-instructions`).
    let hidden: Bool

    /// A command; see the properties.
    init(_ name: String, summary: String, positionals: [String] = [], options: [OptionSpec], hidden: Bool = false,
         exitCodes: [ExitCodeDoc] = [ExitCodeDoc(.ok), ExitCodeDoc(.badInput)], positionalChoices: [String] = []) {
        self.name = name
        self.summary = summary
        self.positionals = positionals
        self.options = options
        self.hidden = hidden
        self.exitCodes = exitCodes
        self.positionalChoices = positionalChoices
    }
}

/// An exit code as a command documents it: the code and what it means for that command.
struct ExitCodeDoc: Sendable, Equatable {
    let code: ExitCode
    let meaning: String

    /// `code` with its general meaning, or a command's own wording.
    init(_ code: ExitCode, _ meaning: String? = nil) {
        self.code = code
        self.meaning = meaning ?? code.meaning
    }
}

/// A parsed option value.
enum OptionValue: Sendable, Equatable {
    /// A flag was present.
    case flag
    /// A `.string` option's text.
    case string(String)
    /// An `.integer` option's value, within its range.
    case integer(Int)
    /// An `.unsignedInteger` option's value.
    case unsignedInteger(UInt64)
}

/// A successfully parsed command line for one command.
struct ParsedCommand: Sendable, Equatable {
    /// The command's name.
    let command: String
    /// Positional arguments, in order.
    let positionals: [String]
    /// Values per option name, in command-line order.
    let values: [String: [OptionValue]]

    /// Whether flag `name` was given.
    func flag(_ name: String) -> Bool { values[name] != nil }

    /// The last value of string option `name`.
    func string(_ name: String) -> String? {
        if case let .string(s)? = values[name]?.last { return s }
        return nil
    }

    /// All values of repeatable string option `name`, in order.
    func strings(_ name: String) -> [String] {
        (values[name] ?? []).compactMap { if case let .string(s) = $0 { return s } else { return nil } }
    }

    /// The value of integer option `name`.
    func integer(_ name: String) -> Int? {
        if case let .integer(i)? = values[name]?.last { return i }
        return nil
    }

    /// The value of unsigned option `name`.
    func unsignedInteger(_ name: String) -> UInt64? {
        if case let .unsignedInteger(u)? = values[name]?.last { return u }
        return nil
    }
}

/// What the command line asks for.
enum CommandLineRequest: Sendable, Equatable {
    /// Run a command.
    case run(ParsedCommand)
    /// Print help, for one command or (nil) for the program.
    case help(command: String?)
    /// Print the version.
    case version
}

/// A command-line error, naming the argument, the value and what was expected.
enum ArgumentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No arguments at all.
    case missingCommand
    /// A first argument that names no command, with the closest command name.
    case unknownCommand(String, suggestion: String?)
    /// An option the command does not have, with the closest option (`--replications`).
    case unknownOption(String, command: String, suggestion: String?)
    /// An option that needs a value came last.
    case missingValue(option: String, expected: String)
    /// A value that does not parse as the option's type or lies outside its range.
    case invalidValue(option: String, value: String, expected: String)
    /// `--flag=value` for a flag.
    case flagTakesNoValue(option: String, value: String)
    /// A non-repeatable option given twice.
    case repeatedOption(String)
    /// Fewer positional arguments than the command needs.
    case missingPositional(command: String, name: String)
    /// More positional arguments than the command takes.
    case unexpectedArgument(command: String, argument: String)
    /// More than `CommandLineSpec.argumentLimit` arguments.
    case tooManyArguments(limit: Int, found: Int)

    var description: String {
        func suggest(_ s: String?) -> String { s.map { "; did you mean \($0)?" } ?? "" }
        switch self {
        case .missingCommand: return "expected a command (see --help)"
        case let .unknownCommand(c, s): return "unknown command \"\(c)\"\(suggest(s.map { "\"\($0)\"" }))"
        case let .unknownOption(o, c, s): return (c.isEmpty ? "" : "\(c): ") + "unknown option \(o)\(suggest(s))"
        case let .missingValue(o, e): return "--\(o): expected \(e), found nothing"
        case let .invalidValue(o, v, e): return "--\(o): expected \(e), found \(DisplayText.quoted(v))"
        case let .flagTakesNoValue(o, v): return "--\(o): expected no value, found \(DisplayText.quoted(v))"
        case let .repeatedOption(o): return "--\(o): given more than once"
        case let .missingPositional(c, n): return "\(c): expected \(n), found nothing"
        case let .unexpectedArgument(c, a): return "\(c): unexpected argument \(DisplayText.quoted(a))"
        case let .tooManyArguments(l, f): return "expected at most \(l) arguments, found \(f)"
        }
    }
}

/// A table-driven command-line parser: `PROGRAM COMMAND [POSITIONALS] [--option VALUE | --option=VALUE]...`.
///
/// `--help`/`-h` and `--version` work before or after any command. `--` ends option parsing.
/// Unknown commands and options are errors suggesting the closest spelling.
struct CommandLineSpec: Sendable, Equatable {
    /// Most arguments accepted.
    static let argumentLimit = 10_000

    /// The program's name, for usage lines and messages.
    let programName: String
    /// Printed for `--version` by the caller.
    let version: String
    /// The command table.
    let commands: [CommandSpec]

    /// A command line of `commands`.
    init(programName: String, version: String, commands: [CommandSpec]) {
        self.programName = programName
        self.version = version
        self.commands = commands
    }

    /// Parses `arguments` (without the program name).
    /// - Complexity: O(arguments · options).
    func parse(_ arguments: [String]) -> Result<CommandLineRequest, ArgumentError> {
        guard arguments.count <= Self.argumentLimit else {
            return .failure(.tooManyArguments(limit: Self.argumentLimit, found: arguments.count))
        }
        guard let first = arguments.first else { return .failure(.missingCommand) }
        if first == "--help" || first == "-h" { return .success(.help(command: nil)) }
        if first == "--version" { return .success(.version) }
        // `help [COMMAND]` is `COMMAND --help`.
        if first == "help" {
            guard arguments.count <= 2 else { return .failure(.unexpectedArgument(command: "help", argument: arguments[2])) }
            guard let name = arguments.dropFirst().first else { return .success(.help(command: nil)) }
            guard commands.contains(where: { $0.name == name }) else {
                return .failure(.unknownCommand(name, suggestion: Spelling.closest(to: name, among: commands.map(\.name))))
            }
            return .success(.help(command: name))
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            if first.hasPrefix("-") {
                // Tools built on other argument parsers offer this flag; here completion is a command.
                if first == "--generate-completion-script" {
                    return .failure(.unknownOption(first, command: "", suggestion: "`\(programName) completion bash` (or zsh, fish)"))
                }
                return .failure(.unknownOption(first, command: "", suggestion: Spelling.closest(to: first, among: ["--help", "--version"])))
            }
            return .failure(.unknownCommand(first, suggestion: Spelling.closest(to: first, among: commands.map(\.name))))
        }
        return parse(command, Array(arguments.dropFirst()))
    }

    private func parse(_ command: CommandSpec, _ args: [String]) -> Result<CommandLineRequest, ArgumentError> {
        var values: [String: [OptionValue]] = [:]
        var positionals: [String] = []
        var i = 0
        var optionsEnded = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if optionsEnded || !arg.hasPrefix("-") || arg == "-" {
                positionals.append(arg)
                continue
            }
            if arg == "--" { optionsEnded = true; continue }
            if arg == "--help" || arg == "-h" { return .success(.help(command: command.name)) }
            if arg == "--version" { return .success(.version) }
            let body = arg.hasPrefix("--") ? String(arg.dropFirst(2)) : String(arg.dropFirst())
            let name: String, inline: String?
            if let eq = body.firstIndex(of: "=") {
                name = String(body[..<eq])
                inline = String(body[body.index(after: eq)...])
            } else {
                name = body
                inline = nil
            }
            guard arg.hasPrefix("--"), let option = command.options.first(where: { $0.name == name }) else {
                let known = command.options.map { "--" + $0.name } + ["--help", "--version"]
                let shown = arg.hasPrefix("--") ? "--" + name : arg
                return .failure(.unknownOption(shown, command: command.name, suggestion: Spelling.closest(to: shown, among: known)))
            }
            if values[name] != nil, !option.repeatable { return .failure(.repeatedOption(name)) }
            let value: OptionValue
            if option.kind == .flag {
                if let inline { return .failure(.flagTakesNoValue(option: name, value: inline)) }
                value = .flag
            } else {
                let text: String
                if let inline {
                    text = inline
                } else if i < args.count {
                    text = args[i]
                    i += 1
                } else {
                    return .failure(.missingValue(option: name, expected: expected(option)))
                }
                switch typed(text, option) {
                case let .success(v): value = v
                case let .failure(e): return .failure(e)
                }
            }
            values[name, default: []].append(value)
        }
        if positionals.count < command.positionals.count {
            return .failure(.missingPositional(command: command.name, name: command.positionals[positionals.count]))
        }
        if positionals.count > command.positionals.count {
            return .failure(.unexpectedArgument(command: command.name, argument: positionals[command.positionals.count]))
        }
        return .success(.run(ParsedCommand(command: command.name, positionals: positionals, values: values)))
    }

    private func expected(_ option: OptionSpec) -> String {
        switch option.kind {
        case .flag: return "no value"
        case .string: return option.valueName
        case let .integer(r): return "an integer in \(r.lowerBound)...\(r.upperBound)"
        case .unsignedInteger: return "an integer in 0...\(UInt64.max)"
        }
    }

    private func typed(_ text: String, _ option: OptionSpec) -> Result<OptionValue, ArgumentError> {
        let bad = ArgumentError.invalidValue(option: option.name, value: text, expected: expected(option))
        switch option.kind {
        case .flag:
            return .success(.flag)
        case .string:
            return text.isEmpty ? .failure(bad) : .success(.string(text))
        case let .integer(range):
            guard let n = Int(text), range.contains(n) else { return .failure(bad) }
            return .success(.integer(n))
        case .unsignedInteger:
            guard text.first != "+", let n = UInt64(text) else { return .failure(bad) }
            return .success(.unsignedInteger(n))
        }
    }

    /// Help text for the program (nil) or one command, listing options in table order.
    func helpText(for commandName: String? = nil) -> String {
        guard let name = commandName, let command = commands.first(where: { $0.name == name }) else {
            var lines = ["usage: \(programName) COMMAND [options]", "", "commands:"]
            for c in commands where !c.hidden { lines.append("  " + c.name.padding(toLength: 14, withPad: " ", startingAt: 0) + c.summary) }
            lines.append("  " + "help".padding(toLength: 14, withPad: " ", startingAt: 0) + "show help for a command (prestage help COMMAND)")
            lines += ["", "  --help, -h    show help (also after a command)", "  --version     show the version and source revision"]
            lines += ["", "exit codes (each command's help lists the ones it returns):"]
                + [ExitCode.ok, .runFailed, .badInput, .gateNotPassed, .interrupted, .quit, .terminated].map { "  " + String($0.rawValue).padding(toLength: 5, withPad: " ", startingAt: 0) + $0.meaning }
            return lines.joined(separator: "\n")
        }
        var usage = "usage: \(programName) \(command.name)"
        for p in command.positionals { usage += " " + p }
        usage += " [options]"
        var lines = [usage, "", command.summary, "", "options:"]
        let lefts = command.options.map { "--" + $0.name + ($0.kind == .flag ? "" : " " + $0.valueName) }
        // The option column is 22 wide, or wider when a name needs it, always with two spaces
        // before the help text (padding(toLength:) alone would cut a longer name).
        let width = max(22, (lefts.map(\.count).max() ?? 0) + 2)
        for (o, left) in zip(command.options, lefts) {
            lines.append("  " + left.padding(toLength: width, withPad: " ", startingAt: 0) + o.help + (o.repeatable ? " (repeatable)" : ""))
        }
        lines.append("  " + "--help, -h".padding(toLength: width, withPad: " ", startingAt: 0) + "show this help")
        lines += ["", "exit codes:"] + command.exitCodes.map { "  " + String($0.code.rawValue).padding(toLength: 5, withPad: " ", startingAt: 0) + $0.meaning }
        return lines.joined(separator: "\n")
    }
}
