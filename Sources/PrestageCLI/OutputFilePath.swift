import Foundation

/// An option naming one file to write (`fit --out FILE`, `plan --emit-sweep FILE`), checked before
/// any work: a missing directory or a directory given as the file is bad input (exit 2), not a
/// write failure after the work is done (exit 1).
enum OutputFilePath {
    /// Why `path`, given to `--option`, cannot be written as a file; nil when it can (its
    /// directory exists and it is not a directory itself).
    static func problem(option: String, path: String) -> String? {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return "--\(option) \(path): is a directory; expected a file path"
        }
        let parent = url.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: parent.path, isDirectory: &isDirectory) else {
            return "--\(option) \(path): the directory \(parent.path) does not exist; expected a file in an existing directory"
        }
        guard isDirectory.boolValue else {
            return "--\(option) \(path): \(parent.path) is not a directory; expected a file in an existing directory"
        }
        return nil
    }
}
