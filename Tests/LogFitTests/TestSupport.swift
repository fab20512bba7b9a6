import Foundation
import LogFit

/// The shipped sample logs (Tests/LogFitTests/Samples).
enum Samples {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Samples", isDirectory: true)
    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}

/// Reads every record of one file with `read`.
func records<R>(_ name: String, _ read: (LineSource, inout ReadProblems, (R) -> Void) throws -> Void) throws -> ([R], ReadProblems) {
    var out: [R] = []
    var problems = ReadProblems()
    try read(try LineSource(path: Samples.path(name)), &problems) { out.append($0) }
    return (out, problems)
}

/// A temporary directory removed by `cleanUp`.
struct TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("logfit-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func file(_ name: String, _ text: String) throws -> String {
        let u = url.appendingPathComponent(name)
        try Data(text.utf8).write(to: u)
        return u.path
    }
    func cleanUp() { try? FileManager.default.removeItem(at: url) }
}
