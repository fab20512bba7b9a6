import Experiments

/// The last step of every command that writes a results directory: `body` writes the files and
/// commits the directory and answers the exit code. When it throws, the error goes to standard
/// error as `prestage COMMAND: cannot write the results: …`, the directory stays partial and is
/// marked incomplete with `failure` and the error (what `prestage` prints for it later), and the
/// command exits with `.runFailed`. Nothing that was written is removed.
func writingResults(_ directory: ResultsDirectory, command: String, failure: String = "Writing the results failed",
                    environment env: CommandEnvironment, _ body: () throws -> ExitCode) -> ExitCode {
    do {
        return try body()
    } catch {
        env.standardError.write("prestage \(command): cannot write the results: \(error)\n")
        RunCommand.markIncomplete(directory, reason: "\(failure): \(error)")
        return .runFailed
    }
}
