import Foundation

/// The scenario files in `scenarios/` directories: bare-name look-up and the `list` command.
package struct ScenarioLibrary: Sendable {
    /// Largest scenario file read, bytes.
    static let fileBytesMax = 8 << 20

    /// One library entry.
    package struct Entry: Sendable, Equatable {
        /// The file's base name without `.json` (what `prestage run NAME` takes).
        package var name: String
        /// The file.
        var url: URL
        /// The file's `question`, or a note saying why it could not be read.
        package var question: String
        /// Whether `name` and `question` were read.
        var readable: Bool
    }

    /// Directories searched in order; the first holding `NAME.json` wins.
    let directories: [URL]

    /// A library over `directories`.
    package init(directories: [URL]) { self.directories = directories }

    /// Every `*.json` in the directories, by name (a name in an earlier directory hides later ones).
    /// - Complexity: O(files · file size).
    package func entries() -> [Entry] {
        var seen: Set<String> = []
        var out: [Entry] = []
        for directory in directories {
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { continue }
            for file in files.sorted() where file.hasSuffix(".json") && !file.hasPrefix(".") {
                let name = String(file.dropLast(5))
                guard seen.insert(name).inserted else { continue }
                let url = directory.appendingPathComponent(file)
                let (question, ok) = Self.readQuestion(url)
                out.append(Entry(name: name, url: url, question: question, readable: ok))
            }
        }
        return out.sorted { $0.name < $1.name }
    }

    /// The `question` member of a scenario file, without decoding the rest.
    static func readQuestion(_ url: URL) -> (String, Bool) {
        guard let data = FileManager.default.contents(atPath: url.path), data.count <= fileBytesMax else {
            return ("(unreadable file)", false)
        }
        guard case let .object(o)? = try? JSONParser.parse(data) else { return ("(not valid JSON; see prestage validate)", false) }
        guard case let .string(q)? = o["question"] else { return ("(no question; see prestage validate)", false) }
        return (q, true)
    }

    /// The file `argument` names: an existing path as is; otherwise a bare name (no "/", optional
    /// ".json") looked up in the directories.
    /// - Throws: a message naming the argument, the directories searched and the closest name.
    func resolve(_ argument: String) throws(ScenarioLoadError) -> URL {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), !isDirectory.boolValue {
            return URL(fileURLWithPath: argument)
        }
        let looksLikePath = argument.contains("/")
        if !looksLikePath {
            let base = argument.hasSuffix(".json") ? String(argument.dropLast(5)) : argument
            for directory in directories {
                let url = directory.appendingPathComponent(base + ".json")
                if FileManager.default.fileExists(atPath: url.path) { return url }
            }
            let names = entries().map(\.name)
            let searched = directories.isEmpty ? "scenarios/" : directories.map(\.path).joined(separator: " or ")
            var message = "\(argument): expected a scenario file or a name from \(searched), found neither"
            if let suggestion = Spelling.closest(to: base, among: names) { message += "; did you mean \"\(suggestion)\"?" }
            else if !names.isEmpty { message += " (known: \(names.joined(separator: ", ")))" }
            throw ScenarioLoadError(message)
        }
        throw ScenarioLoadError("\(argument): expected a scenario file, found \(isDirectory.boolValue ? "a directory" : "nothing")")
    }
}

/// A scenario could not be found, read or decoded; the message names the file and, for decoding
/// problems, has one `path: expected …, found …` line per problem.
package struct ScenarioLoadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The user-facing text.
    package let description: String
    /// Problems found in the file, when decoding got that far (at most the report limit).
    package let diagnostics: [Diagnostic]
    /// Every problem found, those beyond the report limit included.
    package let problemCount: Int

    /// An error with `description` and optional diagnostics (`problemCount`: all found).
    package init(_ description: String, diagnostics: [Diagnostic] = [], problemCount: Int? = nil) {
        self.description = description
        self.diagnostics = diagnostics
        self.problemCount = problemCount ?? diagnostics.count
    }
}
