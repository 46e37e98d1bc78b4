#pragma once
// Per-op GPU times measured by the PyTorch profiler (a Kineto Chrome trace): each GPU kernel is
// attributed, through the correlation id of its CPU-side launch, to the innermost user
// annotation (`record_function`) of the launching process whose range holds that launch. An op
// is an annotation name; each annotation event is one instance of it (DeepSeek's profile has
// four of each op, one per layer).
//
// The same figures, with the device and the workload the trace was taken on, are the
// calibration file a training-step scenario takes as "calibration".
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "workload/profile/kernel_class.hpp"

namespace workload {

struct OpTimes {
  int instances = 0;
  double kernels = 0;                      // per instance
  std::map<int, double> stream_ms;         // per instance: kernel time summed on each stream
  std::map<KernelClass, double> class_ms;  // per instance: kernel time summed by class (not in the file)
  double busy_ms = 0;                      // per instance: union of its kernels' intervals, all streams
  double span_ms = 0;                      // per instance: first kernel's start to last kernel's end
};

// What the trace was taken of, as far as a scenario must know it to scale the figures.
struct ProfiledWorkload {
  double micro_batch_tokens = 0;  // 0: not stated
  int communication_sms = -1;     // SMs the communication kernels held; -1: not stated
};

struct Profile {
  std::string source;  // the trace's path, for messages
  std::string device;  // its name, from deviceProperties
  int device_id = 0;
  int sms = 0;
  std::map<std::string, OpTimes> ops;
  int kernels = 0;       // on the device, attributed or not
  int unattributed = 0;  // kernels whose launch no annotation holds
  double span_ms = 0;    // the device's first kernel's start to its last one's end (not in the file)
  ProfiledWorkload workload;
};

// Reads a trace: InputError naming the file and the field when it is not JSON, not a Chrome
// trace, truncated, has no kernels or no annotations, or holds several devices and `device` is
// not given (or names none of them).
Profile read_profile_trace(const std::string& path, std::optional<int> device = std::nullopt);
Profile profile_from_trace(const nlohmann::json& trace, const std::string& origin,
                           std::optional<int> device = std::nullopt);

// The calibration file: the profile's figures as JSON, and back (InputError naming the file and
// the JSON pointer).
nlohmann::json calibration_json(const Profile& profile);
Profile read_calibration(const std::string& path);
Profile calibration_from_json(const nlohmann::json& document, const std::string& origin);

}  // namespace workload
