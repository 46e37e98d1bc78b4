// codesim calibrate TRACE.json [--device N] [--out calibration.json] [--micro-batch-tokens N]
//                   [--communication-sms N]: per-op GPU times of a PyTorch profiler trace.
#include <cstdio>
#include <iostream>
#include <set>

#include "cli/options.hpp"
#include "core/input_error.hpp"
#include "studies/config/output_file.hpp"
#include "workload/profile/profile_trace.hpp"

namespace cli {

namespace {

std::string three_places(double x) {  // milliseconds to three places
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f", x);
  return buffer;
}

}  // namespace

int calibrate_command(const Args& args) {
  po::options_description options("options");
  std::string trace_path, out_path;
  int device = -1, communication_sms = -1;
  double micro_batch_tokens = 0;
  options.add_options()("trace", po::value(&trace_path)->required(), "PyTorch profiler (Kineto) Chrome trace, JSON")(
      "device", po::value(&device), "the GPU whose kernels to read, when the trace holds several")(
      "out", po::value(&out_path), "write the calibration file a training-step scenario takes as \"calibration\"")(
      "micro-batch-tokens", po::value(&micro_batch_tokens),
      "tokens per micro-batch of the profiled run (for the file)")(
      "communication-sms", po::value(&communication_sms),
      "SMs the communication kernels held in the profiled run (for the file)");
  po::positional_options_description positional;
  positional.add("trace", 1);
  po::variables_map vm;
  if (!parse_options(args,
                     "usage: codesim calibrate TRACE.json [options]\n"
                     "Attributes each GPU kernel to the user annotation (record_function) whose CPU range holds its\n"
                     "launch, and prints per op and per instance: kernel time on each stream, busy time (the union of\n"
                     "its kernels' intervals), span and kernel count.",
                     options, positional, vm))
    return 0;
  if (vm.count("micro-batch-tokens") && micro_batch_tokens <= 0)
    throw core::InputError("--micro-batch-tokens",
                           std::to_string(micro_batch_tokens) + " is not allowed; expected a number > 0");
  if (vm.count("communication-sms") && communication_sms < 0)
    throw core::InputError("--communication-sms",
                           std::to_string(communication_sms) + " is not allowed; expected 0 or more");
  if (!out_path.empty()) studies::check_writable_file(out_path);

  auto profile =
      workload::read_profile_trace(trace_path, vm.count("device") ? std::optional<int>(device) : std::nullopt);
  profile.workload.micro_batch_tokens = micro_batch_tokens;
  profile.workload.communication_sms = communication_sms;
  if (profile.sms > 0 && communication_sms >= profile.sms)
    throw core::InputError(
        "--communication-sms",
        std::to_string(communication_sms) + " is not allowed; the device has " + std::to_string(profile.sms) + " SMs");

  std::set<int> streams;
  for (const auto& [name, op] : profile.ops)
    for (const auto& [stream, t] : op.stream_ms) streams.insert(stream);
  std::cout << "device " << profile.device_id << ": " << (profile.device.empty() ? "unnamed" : profile.device)
            << (profile.sms ? " (" + std::to_string(profile.sms) + " SMs)" : "") << ", " << profile.kernels
            << " kernels over " << three_places(profile.span_ms) << " ms, " << profile.unattributed
            << " launched outside every annotation\n\n";
  std::cout << "| op | instances | kernels | busy ms | span ms |";
  for (int s : streams) std::cout << " stream " << s << " ms |";
  std::cout << "\n|---|---:|---:|---:|---:|";
  for (std::size_t i = 0; i < streams.size(); ++i) std::cout << "---:|";
  std::cout << "\n";
  for (const auto& [name, op] : profile.ops) {
    std::cout << "| " << name << " | " << op.instances << " | "
              << three_places(op.kernels).substr(0, three_places(op.kernels).size() - 2) << " | "
              << three_places(op.busy_ms) << " | " << three_places(op.span_ms) << " |";
    for (int s : streams) std::cout << " " << (op.stream_ms.count(s) ? three_places(op.stream_ms.at(s)) : "–") << " |";
    std::cout << "\n";
  }
  std::cout
      << "\nPer instance (the mean over an op's annotations); busy: the union of its kernels' intervals on all streams.\n";
  // Where each op's kernel time goes, by what its kernels do (workload::kernel_class).
  const auto classes = {workload::KernelClass::kGemm, workload::KernelClass::kAttention,
                        workload::KernelClass::kCommunication, workload::KernelClass::kOther};
  std::cout << "\n| op |";
  for (auto c : classes) std::cout << " " << workload::kernel_class_name(c) << " ms |";
  std::cout << "\n|---|---:|---:|---:|---:|\n";
  for (const auto& [name, op] : profile.ops) {
    std::cout << "| " << name << " |";
    for (auto c : classes) std::cout << " " << (op.class_ms.count(c) ? three_places(op.class_ms.at(c)) : "–") << " |";
    std::cout << "\n";
  }
  std::cout
      << "\nKernel time per instance by class, from the kernels' names (GEMM: \"gemm\" but not a transpose; attention:\n"
         "FlashAttention or FMHA; communication: DeepEP or NCCL); kernels on several streams may overlap, so a row\n"
         "can add up to more than its busy time.\n";
  if (!out_path.empty()) {
    studies::write_file_atomically(out_path, workload::calibration_json(profile).dump(2) + "\n");
    std::cerr << "wrote " << out_path << "\n";
  }
  return 0;
}

}  // namespace cli
