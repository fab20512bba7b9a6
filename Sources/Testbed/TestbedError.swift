/// Why a testbed run stopped.
package enum TestbedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A program the testbed needs is not installed.
    case missingProgram(name: String, hint: String)
    /// A component could not start, or died during the run. `log` is the end of its output.
    case componentFailed(component: String, reason: String, log: String?)
    /// The scenario cannot be scaled to a testbed run (path, value, expectation).
    case unsupportedScenario(path: String, found: String, expected: String)
    /// Ctrl-C or SIGTERM.
    case interrupted
    /// The run directory or the report could not be written.
    case output(path: String, reason: String)
    /// The model run failed.
    case model(String)

    package var description: String {
        switch self {
        case let .missingProgram(name, hint):
            return "\(name) is not installed. \(hint)"
        case let .componentFailed(component, reason, log):
            var s = "\(component) failed: \(reason)"
            if let log, !log.isEmpty { s += "\n--- last output of \(component) ---\n\(log)" }
            return s
        case let .unsupportedScenario(path, found, expected):
            return "\(path): expected \(expected), found \(found)"
        case .interrupted:
            return "interrupted; every component was stopped"
        case let .output(path, reason):
            return "\(path): \(reason)"
        case let .model(message):
            return "model run failed: \(message)"
        }
    }
}
