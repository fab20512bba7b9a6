import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

/// A command environment writing into buffers, with temporary directories and a fixed amount of
/// available memory, so commands run in-process without touching the real results/.
struct TestEnvironment {
    let out = CapturedOutput()
    let err = CapturedOutput()
    let root: URL
    var environment: CommandEnvironment

    init(scenarioDirectories: [URL]? = nil, availableBytes: UInt64 = 64 << 30, processors: Int = 2) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("prestage-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let memory = AvailableMemory(bytes: availableBytes, source: "test")
        environment = CommandEnvironment(
            standardOutput: out, standardError: err, errorIsTerminal: false,
            scenarioDirectories: scenarioDirectories ?? [TestEnvironment.repositoryScenarios],
            resultsParent: root.appendingPathComponent("results", isDirectory: true),
            availableMemory: { memory }, processorCount: processors, handlesInterrupts: false)
    }

    /// Runs `prestage ARGS` in-process.
    @discardableResult
    func run(_ arguments: [String]) -> ExitCode {
        PrestageCLI.main(arguments, environment: environment)
    }

    /// Writes `text` to a file in the temporary root and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        let url = root.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func cleanUp() { try? FileManager.default.removeItem(at: root) }

    /// The package root (this file is Tests/ScenarioTests/TestSupport.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let repositoryScenarios = packageRoot.appendingPathComponent("scenarios", isDirectory: true)
}
