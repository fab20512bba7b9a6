import XCTest
@testable import Experiments
@testable import ScenarioFormat

final class OutputLockTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("outputlock-\(getpid())-\(name.filter(\.isLetter))", isDirectory: true)
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    static let owner = OutputOwner(pid: 4242, host: "node7", started: "2026-12-01T11:00:00Z", command: "prestage run default")

    /// One owner at a time; the refusal names the owner; once released the lock is free again.
    func testOneOwnerAtATimeNamedInTheRefusal() throws {
        let first = try OutputLock.acquire(in: directory, name: "X", owner: Self.owner)
        XCTAssertThrowsError(try OutputLock.acquire(in: directory, name: "X", owner: .current(command: "second"))) {
            XCTAssertEqual(($0 as? FileOutputError)?.reason,
                           "another run is writing it: pid 4242 on host node7 since 2026-12-01T11:00:00Z (prestage run default); wait for it to end or choose another output directory")
        }
        XCTAssertNoThrow(try OutputLock.acquire(in: directory, name: "Y", owner: Self.owner).release(), "another name is another lock")
        first.release()
        let second = try OutputLock.acquire(in: directory, name: "X", owner: .current(command: "second"))
        second.release()
    }

    /// The marker records the owner; a commit leaves neither marker nor lock file behind.
    func testMarkerRecordsTheOwnerAndCommitLeavesNoLock() throws {
        let run = try ResultsDirectory.begin(in: directory, name: "r", owner: Self.owner)
        let marker = try String(contentsOf: run.partialURL.appendingPathComponent("INCOMPLETE"), encoding: .utf8)
        XCTAssertTrue(marker.hasPrefix(ResultsDirectory.markerHeading), marker)
        for line in ["pid: 4242", "host: node7", "started: 2026-12-01T11:00:00Z", "command: prestage run default"] {
            XCTAssertTrue(marker.contains(line + "\n"), marker)
        }
        XCTAssertEqual(OutputOwner.parse(marker), Self.owner)
        try run.write(Data("{}".utf8), named: "summary.json")
        try run.commit()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["r"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: run.finalURL.path), ["summary.json"])
    }

    /// A kill between the commit's rename and the marker's removal leaves `NAME` complete with the
    /// marker in it; the next owner of the lock removes that marker.
    func testNextOwnerFinishesACommitCutAfterTheRename() throws {
        let final = directory.appendingPathComponent("r")
        try FileManager.default.createDirectory(at: final, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: final.appendingPathComponent("summary.json"))
        try Data((ResultsDirectory.markerHeading + "\npid: 1\nhost: h\n").utf8).write(to: final.appendingPathComponent("INCOMPLETE"))
        let lock = try OutputLock.acquire(in: directory, name: "r", owner: Self.owner)
        defer { lock.release() }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: final.path), ["summary.json"])
        // A file named INCOMPLETE that this tool did not write is not touched.
        try Data("mine".utf8).write(to: final.appendingPathComponent("INCOMPLETE"))
        lock.release()
        try OutputLock.acquire(in: directory, name: "r", owner: Self.owner).release()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: final.path).sorted(), ["INCOMPLETE", "summary.json"])
    }

    /// Earlier results a killed commit moved aside are put back (no `NAME`: killed before the
    /// rename) or removed (`NAME` there: killed after it) by the next owner.
    func testNextOwnerPutsBackOrRemovesResultsMovedAside() throws {
        let fm = FileManager.default
        try fm.createDirectory(at: directory.appendingPathComponent(".r.old-123"), withIntermediateDirectories: true)
        try Data("old".utf8).write(to: directory.appendingPathComponent(".r.old-123/summary.json"))
        try OutputLock.acquire(in: directory, name: "r", owner: Self.owner).release()
        XCTAssertEqual(try String(contentsOf: directory.appendingPathComponent("r/summary.json"), encoding: .utf8), "old")
        try fm.createDirectory(at: directory.appendingPathComponent(".r.old-456"), withIntermediateDirectories: true)
        try OutputLock.acquire(in: directory, name: "r", owner: Self.owner).release()
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: directory.path).sorted(), [".r.lock", "r"])
    }

    /// A start that failed or was killed before its marker (a full disk) leaves nothing that
    /// blocks the next run.
    func testFailedStartLeavesNoUnmarkedDirectory() throws {
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("r.partial"), withIntermediateDirectories: true)
        let run = try ResultsDirectory.begin(in: directory, name: "r", owner: Self.owner)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: run.partialURL.path), ["INCOMPLETE"])
    }

    func testDisplayTextEscapesAndBounds() {
        XCTAssertEqual(DisplayText.bounded("a\u{202E}b\nc\u{200B}d"), "a\\u{202E}b\\u{A}c\\u{200B}d")
        XCTAssertEqual(DisplayText.bounded(String(repeating: "x", count: 500)).count, DisplayText.limitCharacters + 1)
        XCTAssertEqual(DisplayText.bounded("héllo wörld"), "héllo wörld")
    }
}

final class CgroupMemoryTests: XCTestCase {
    /// A fake /proc and cgroup tree: the container's limit (cgroup v2 memory.max, or v1
    /// memory.limit_in_bytes) less its usage bounds the available memory, the tightest level wins.
    func testContainerLimitBoundsTheAvailableMemory() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cgroup-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        func write(_ path: String, _ text: String) throws {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try write("meminfo", "MemTotal: 67108864 kB\nMemAvailable: 33554432 kB\n")  // 32 GiB available
        try write("v2/self", "0::/kubepods/pod1/c1\n")
        try write("v2fs/kubepods/memory.max", "max\n")
        try write("v2fs/kubepods/pod1/memory.max", "4294967296\n")      // 4 GiB for the pod
        try write("v2fs/kubepods/pod1/memory.current", "1073741824\n")  // 1 GiB used
        try write("v2fs/kubepods/pod1/c1/memory.max", "max\n")
        let v2 = AvailableMemory.probe(meminfo: root.appendingPathComponent("meminfo").path,
                                       procSelfCgroup: root.appendingPathComponent("v2/self").path,
                                       cgroupRoot: root.appendingPathComponent("v2fs").path)
        XCTAssertEqual(v2.bytes, 3 << 30)
        XCTAssertTrue(v2.source.hasPrefix("cgroup v2 limit 4 GiB less 1 GiB in use"), v2.source)

        try write("v1/self", "12:cpu,cpuacct:/slurm/job9\n4:memory:/slurm/job9\n")
        try write("v1fs/memory/slurm/job9/memory.limit_in_bytes", "2147483648\n")
        try write("v1fs/memory/slurm/job9/memory.usage_in_bytes", "536870912\n")
        try write("v1fs/memory/memory.limit_in_bytes", "9223372036854771712\n")  // v1's "no limit"
        let v1 = AvailableMemory.probe(meminfo: root.appendingPathComponent("meminfo").path,
                                       procSelfCgroup: root.appendingPathComponent("v1/self").path,
                                       cgroupRoot: root.appendingPathComponent("v1fs").path)
        XCTAssertEqual(v1.bytes, (2 << 30) - (512 << 20))
        XCTAssertTrue(v1.source.hasPrefix("cgroup v1 limit 2 GiB"), v1.source)

        // No limit anywhere: the machine's figure.
        let none = AvailableMemory.probe(meminfo: root.appendingPathComponent("meminfo").path,
                                         procSelfCgroup: root.appendingPathComponent("absent").path, cgroupRoot: root.path)
        XCTAssertEqual(none.bytes, 32 << 30)
        XCTAssertTrue(none.source.hasPrefix("MemAvailable"), none.source)
    }
}
