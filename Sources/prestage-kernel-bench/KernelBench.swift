@main
struct KernelBench {
    static func main() {
        print("kernel bench: under construction")
    }
}
