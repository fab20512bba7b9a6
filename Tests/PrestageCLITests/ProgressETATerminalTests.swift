import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The ETA as a user reads it, through a pseudo-terminal, on a real run whose event count is known
/// in advance (a flash sale of 50 000 devices, two replications one after the other, about 15 s
/// of CPU in a debug build): at every redraw after the first tenth of the run it is within ±30 % of the
/// time the run really had left.
///
/// How "time left" is measured: the run draws with `PRESTAGE_PROGRESS_CLOCK=cpu`, its own CPU time as
/// the display's clock (the estimate is made exactly as on the wall clock), and this test reads the
/// same clock, the process's CPU time (`/proc/PID/stat`, 10 ms ticks), as each redraw reaches the
/// terminal. Time left = CPU time at the final redraw (100 %, drawn the moment the last replication
/// ends) − CPU time at this redraw. The shown ETA is whole seconds rounded up, so a shown "0:07"
/// stands for an estimate in (6, 7] s: the bound is met when some value in that second is within
/// ±30 % (shown ≥ 0.7 × left and shown − 1 ≤ 1.3 × left); the bound itself is not widened.
///
/// Why a loaded machine does not make it flake: progress counts events, not time, and the ETA is work
/// left over work per second. On the wall clock a uniformly slower machine cancels (both the rate and
/// the time left stretch by the same factor), but a load that changes during the run does not (seen
/// on a shared 2-core machine: a 48 s run whose ETA read 33 % low for 12 s while another build
/// started). The CPU time of the run's own process advances only while the run computes, so other
/// processes' load moves neither the estimate nor the time left; one job keeps the run on one core.
/// It is not wholly immune: a load that changes during the run changes the CPU time each event costs
/// (shared caches and memory bandwidth; seen: an intermittent memory-copy load made one redraw read
/// 0.68 of the time left, and a CI run read 1.37 early in its first replication and 0.69 early in its
/// second). No estimate of the past can foresee that, so the bound is judged on a run whose pace held:
/// its two replications are the same work (same scenario, another seed: event counts within about
/// 1 %), so their CPU times agree within `paceShareMax` when the pace held, and a load that comes
/// and goes within the run seldom leaves them that close. On an idle machine every shown ETA more
/// than 2 s from the end is within 0.90–1.18 of the time left (the estimator's own error: the send's
/// events cost more CPU than the taps'); a pace that moves by up to 10 % keeps that inside ±30 %
/// (1.18 × 1.10 ≈ 1.30, 0.90 / 1.10 ≈ 0.82). A run whose replications differ by more is repeated, at
/// most `attemptsMax` times in all; the last one is judged whatever its pace, so a machine that is
/// never steady still fails loudly rather than skipping. The pace check cannot hide a wrong estimate:
/// the display does not change the run's pace.
final class ProgressETATerminalTests: XCTestCase {
    static let binary = TestEnvironment.packageRoot.appendingPathComponent(".build/debug/prestage")

    /// utime + stime of `pid`, seconds (nil once it has gone).
    static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.range(of: ")", options: .backwards) else { return nil }
        // Fields after "pid (comm)": state is field 3, utime 14, stime 15.
        let fields = stat[close.upperBound...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Largest difference between the two replications' CPU times (as a share) at which the
    /// machine's pace counts as held (see the type's note for why 10 %).
    static let paceShareMax = 0.10
    /// Runs in all at most, the last judged whatever its pace.
    static let attemptsMax = 3

    /// One run as the terminal saw it.
    struct Run {
        var status: Int32
        /// Each redraw with the run's CPU time when it reached the terminal.
        var redraws: [(cpu: Double, line: String)]
        /// All the terminal printed.
        var all: String
        /// The second replication's CPU time over the first's (nil without both boundaries).
        var paceShare: Double? {
            guard let first = redraws.first(where: { $0.line.contains(" 1/2 replications") })?.cpu,
                  let end = redraws.first(where: { $0.line.contains("] 100% ") })?.cpu, first > 0, end > first else { return nil }
            return (end - first) / first
        }
    }

    /// Runs the flash sale once on a pseudo-terminal and records its redraws.
    static func runOnce() throws -> Run {
        #if canImport(Glibc)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("prestage-eta-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var master: Int32 = -1, slave: Int32 = -1
        var size = winsize(ws_row: 24, ws_col: 200, ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else { throw XCTSkip("no pseudo-terminal (openpty failed)") }
        defer { Glibc.close(master) }
        // The flash sale at 50 000 devices with the send rate scaled down too, so the send lasts its
        // 50 s as at 1 M devices and the taps after it are the run's last tenth.
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["run", "black-friday-flash-sale", "--devices", "50000",
                             "--set", "campaigns[0].sendRatePerMinute=60000", "--set", "campaigns[0].providerQuotaPerMinute=60000",
                             "--replications", "2", "--jobs", "1", "--out", root.appendingPathComponent("r").path]
        process.environment = ProcessInfo.processInfo.environment.merging(["PRESTAGE_PROGRESS_CLOCK": "cpu"]) { $1 }
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        process.standardError = terminal
        process.standardOutput = terminal
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try terminal.close()
        let pid = process.processIdentifier
        // Each redraw is "\r" + line + erase-to-end; it has arrived when its erase has.
        var redraws: [(cpu: Double, line: String)] = []
        var all = "", pending = ""
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = read(master, &buffer, buffer.count)
            if n <= 0 { break }  // EIO once the run has closed the terminal
            let cpu = Self.cpuSeconds(pid)
            let text = String(decoding: buffer[0..<n], as: UTF8.self)
            all += text
            pending += text
            while let erase = pending.range(of: "\u{1B}[K") {
                let frame = pending[..<erase.lowerBound]
                pending = String(pending[erase.upperBound...])
                let line = frame.split(separator: "\r", omittingEmptySubsequences: false).last.map(String.init) ?? ""
                if line.hasPrefix("["), let cpu { redraws.append((cpu, line)) }
            }
        }
        process.waitUntilExit()
        return Run(status: process.terminationStatus, redraws: redraws, all: all)
        #else
        throw XCTSkip("needs openpty and /proc (Linux)")
        #endif
    }

    func testETAIsWithin30PercentOfTheTimeLeftAtEveryRedrawAfterTheFirstTenth() throws {
        #if canImport(Glibc)
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            throw XCTSkip("\(Self.binary.path) is not built (swift build --build-tests builds it)")
        }
        var attempt = 0
        var run: Run
        var unsteady: [String] = []
        repeat {
            attempt += 1
            run = try Self.runOnce()
            XCTAssertEqual(run.status, 0, run.all)
            guard let share = run.paceShare, abs(share - 1) > Self.paceShareMax, attempt < Self.attemptsMax else { break }
            unsteady.append(String(format: "attempt %d: second replication %.2f × the first's CPU time", attempt, share))
        } while true
        let (redraws, all) = (run.redraws, run.all)
        print("ETA judged on attempt \(attempt) of \(Self.attemptsMax)" + (unsteady.isEmpty ? "" : " (" + unsteady.joined(separator: ", ") + ")"))
        let end = try XCTUnwrap(redraws.first { $0.line.contains("] 100% ") }?.cpu, "a final redraw at 100 %:\n\(all.suffix(2000))")
        XCTAssertGreaterThan(end, 10, "a run long enough for whole-second ETAs to be checked")
        var checked: [String] = [], failures: [String] = []
        for redraw in redraws where redraw.cpu >= 0.1 * end && redraw.cpu < end {
            let left = end - redraw.cpu
            guard let marker = redraw.line.range(of: "ETA ") else {
                failures.append(String(format: "%.2f s: no ETA in %@", redraw.cpu, redraw.line))
                continue
            }
            let parts = redraw.line[marker.upperBound...].prefix { $0.isNumber || $0 == ":" }.split(separator: ":").compactMap { Int($0) }
            let shown = Double(parts.reduce(0) { $0 * 60 + $1 })
            let row = String(format: "%6.2f s: ETA %3.0f s, left %6.2f s", redraw.cpu, shown, left)
            checked.append(row)
            if !(shown >= 0.7 * left && shown - 1 <= 1.3 * left) { failures.append(row) }
        }
        XCTAssertGreaterThan(checked.count, 20, "redraws checked:\n\(all.suffix(3000))")
        // The redraws beyond the bound come last, so that the end of a long log shows them.
        XCTAssertTrue(failures.isEmpty, "ETA beyond ±30 % of the time left (run \(String(format: "%.1f", end)) s CPU, "
                      + (run.paceShare.map { String(format: "second replication %.2f × the first's CPU time", $0) } ?? "no replication boundary seen")
                      + (unsteady.isEmpty ? "" : "; repeated after: " + unsteady.joined(separator: ", ")) + "); every checked redraw:\n"
                      + checked.joined(separator: "\n") + "\n\(failures.count) beyond ±30 %:\n" + failures.joined(separator: "\n"))
        #else
        throw XCTSkip("needs openpty and /proc (Linux)")
        #endif
    }
}
