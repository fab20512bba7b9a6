import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A testbed component's process: spawned in its own process group (so stopping it also stops
/// what it started, e.g. Varnish's cache child), output to a log file, watched with `waitpid`.
package final class ChildProcess: @unchecked Sendable {
    /// The component's name in messages ("origin", "varnish edge 0", "link shaper").
    package let name: String
    package let pid: pid_t
    package let logURL: URL
    private let lock = NSLock()
    private var exitStatus: Int32?

    /// Starts `executable` (a path, or a name looked up in PATH) with `arguments`.
    /// - Throws: ``TestbedError/componentFailed`` when it cannot be spawned.
    package init(name: String, executable: String, arguments: [String], logURL: URL) throws(TestbedError) {
        self.name = name
        self.logURL = logURL
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logURL.path, O_WRONLY | O_APPEND, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        // The parent ignores SIGINT while the testbed runs; the children get the default back.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF))
        let argv = [executable] + arguments
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        var child: pid_t = 0
        let rc = posix_spawnp(&child, executable, &actions, &attributes, &cArgs, environ)
        guard rc == 0 else {
            throw .componentFailed(component: name, reason: "cannot start \(executable): \(String(cString: strerror(rc)))", log: nil)
        }
        pid = child
    }

    /// The exit status once the process has ended (reaped here), else nil.
    package func poll() -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid {
            exitStatus = status
        } else if r < 0 && errno == ECHILD {
            exitStatus = -1
        }
        return exitStatus
    }

    package var isRunning: Bool { poll() == nil }

    /// Human-readable exit status ("exit 1", "signal 9").
    package var exitDescription: String {
        guard let s = poll() else { return "running" }
        if s < 0 { return "gone" }
        if s & 0x7f == 0 { return "exit \((s >> 8) & 0xff)" }
        return "signal \(s & 0x7f)"
    }

    /// SIGTERM to the process group, SIGKILL after `graceSeconds`; returns when the process is
    /// reaped. Members of the group left after that are killed too.
    package func stop(graceSeconds: Double = 3) {
        if isRunning {
            kill(-pid, SIGTERM)
            let deadline = Date().addingTimeInterval(graceSeconds)
            while isRunning && Date() < deadline { usleep(20_000) }
            if isRunning {
                kill(-pid, SIGKILL)
                while isRunning { usleep(10_000) }
            }
        }
        // A group member that outlived its leader (Varnish's cache child) is still signalled.
        if kill(-pid, 0) == 0 {
            kill(-pid, SIGKILL)
        }
    }

    /// The last `bytes` of the log, for error messages.
    package func logTail(bytes: Int = 2_000) -> String {
        guard let data = FileManager.default.contents(atPath: logURL.path) else { return "" }
        return String(decoding: data.suffix(bytes), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
