import Experiments
import Foundation
import Glibc
import ScenarioFormat

/// A `TextOutput` over a file descriptor (1 or 2), unbuffered so progress lines appear at once.
final class FileDescriptorOutput: TextOutput {
    private let descriptor: Int32

    /// Output to `descriptor` (not closed by this object).
    init(descriptor: Int32) { self.descriptor = descriptor }

    func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if n < 0 {
                if errno == EINTR { continue }
                return  // a closed pipe: nothing useful left to do with the text
            }
            offset += n
        }
    }

    /// Whether the descriptor is a terminal.
    var isTerminal: Bool { isatty(descriptor) == 1 }

    /// The terminal's width in columns: its window size (`TIOCGWINSZ`), else `COLUMNS` from the
    /// environment, else nil.
    var columns: Int? { Self.columns(descriptor: descriptor, environment: ProcessInfo.processInfo.environment) }

    /// `columns` for `descriptor` with `environment`.
    static func columns(descriptor: Int32, environment: [String: String]) -> Int? {
        var size = winsize()
        if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = environment["COLUMNS"], let n = Int(text.trimmingCharacters(in: .whitespaces)), n > 0 { return n }
        return nil
    }
}

/// A `TextOutput` that keeps everything written, for tests.
final class CapturedOutput: TextOutput, @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = ""

    /// An empty buffer.
    init() {}

    func write(_ text: String) {
        lock.lock()
        buffer += text
        lock.unlock()
    }

    /// Everything written so far.
    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return buffer
    }
}

/// Process exit codes of `prestage` (documented in `--help` and the README).
package enum ExitCode: Int32, Sendable {
    /// The command did what was asked.
    case ok = 0
    /// The run failed: the simulation stopped with an error, or results could not be written.
    case runFailed = 1
    /// Bad input: a bad command line, scenario file, override or result directory, or a run
    /// refused by the memory guard.
    case badInput = 2
    /// A gate the user asked for did not pass, the results being written: `compare
    /// --fail-on-regression` found a shown metric that regressed significantly beyond its
    /// threshold, `run`/`plan --fail-on-slo` found a service-level objective failed or undecided,
    /// or `bench` found a regression, a changed fingerprint or more instructions.
    case gateNotPassed = 3
    /// Interrupted by SIGINT (Ctrl-C); the results directory is left as `NAME.partial/` with an
    /// `INCOMPLETE` marker.
    case interrupted = 130
    /// Quit by SIGQUIT (Ctrl-\\); the results directory is left as for `interrupted`, its marker
    /// naming SIGQUIT.
    case quit = 131
    /// Terminated by SIGTERM (a cluster scheduler's preemption or time limit, `kill`); the
    /// results directory is left as for `interrupted`, its marker naming SIGTERM.
    case terminated = 143

    /// One line for help texts and the man page.
    var meaning: String {
        switch self {
        case .ok: return "ok"
        case .runFailed: return "failed (a simulation error, or results that could not be written)"
        case .badInput: return "bad input (command line, file, override, result directory or memory guard)"
        case .gateNotPassed: return "a gate asked for did not pass: a shown metric regressed significantly beyond its threshold (compare --fail-on-regression), an objective failed or is undecided (--fail-on-slo), or bench found a regression, a changed fingerprint or more instructions"
        case .interrupted: return "interrupted (Ctrl-C); results stay in NAME.partial/ with an INCOMPLETE marker"
        case .quit: return "quit (SIGQUIT, Ctrl-\\); as for 130"
        case .terminated: return "terminated (SIGTERM, e.g. a scheduler's preemption or time limit); as for 130"
        }
    }
}
