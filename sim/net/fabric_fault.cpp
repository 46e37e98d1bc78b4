#include "net/fabric_fault.hpp"

#include <sstream>

#include "core/input_error.hpp"
#include "net/fabric.hpp"

namespace net {

namespace {

struct Layout {
  bool planes;        // MPFT: planes; MRFT: rails under shared spines
  std::string group;  // "plane" or "rail"
  int groups, leaves, spines, half, nodes, gpus_per_node, nic_ports;
};

Layout layout_of(const FabricSpec& s) {
  const bool planes = s.kind == FabricKind::kMultiPlane;
  return {planes,
          planes ? "plane" : "rail",
          s.gpus_per_node,
          fabric_leaves_per_group(s),
          fabric_spines_per_group(s),
          s.radix / 2,
          s.nodes,
          s.gpus_per_node,
          s.nic_ports};
}

std::string range(const std::string& word, int n) { return word + " 0.." + std::to_string(n - 1); }

// The names a kind of fault takes on this fabric, as patterns with ranges.
std::string forms(const Layout& l, FaultKind kind) {
  const std::string g = range(l.group, l.groups);
  const std::string spine = l.planes ? g + " / " + range("spine", l.spines) : range("spine", l.spines);
  switch (kind) {
    case FaultKind::kLink:
      return "'" + g + " / " + range("leaf", l.leaves) + " / " +
             (l.spines > 0 ? range("spine", l.spines) + "' or '" + g + " / " + range("leaf", l.leaves) + " / " : "") +
             range("port", l.spines > 0 ? 2 * l.half : l.half) + "'";
    case FaultKind::kNic:
      return "'" + range("node", l.nodes) + " / " + range("nic", l.gpus_per_node) + "'" +
             (l.nic_ports > 1 ? " or '... / " + range("port", l.nic_ports) + "'" : "");
    case FaultKind::kSwitch:
      return "'" + g + " / " + range("leaf", l.leaves) + "'" + (l.spines > 0 ? " or '" + spine + "'" : "");
    case FaultKind::kPlane:
      return "'" + g + "'";
    case FaultKind::kGpu:
      return "'" + range("node", l.nodes) + " / " + range("gpu", l.gpus_per_node) + "'";
    case FaultKind::kNode:
      return "'" + range("node", l.nodes) + "'";
  }
  return "";
}

}  // namespace

const std::vector<std::string>& fault_kind_names() {
  static const std::vector<std::string> names{"link", "nic", "switch", "plane", "gpu", "node"};
  return names;
}

FabricComponent find_fabric_component(const FabricSpec& spec, FaultKind kind, const std::string& target,
                                      const std::string& where) {
  const Layout l = layout_of(spec);
  const std::string kind_name = fault_kind_names()[static_cast<std::size_t>(kind)];
  auto refuse = [&](const std::string& why) {
    throw core::InputError(
        where, "'" + target + "' is not allowed; " + why + "; a " + kind_name + " of this fabric is " + forms(l, kind));
  };
  // "word n / word n ...": the words in order, each with its number.
  std::vector<std::pair<std::string, int>> parts;
  std::istringstream in(target);
  for (std::string word, slash; in >> word;) {
    long long n = -1;
    if (!(in >> n) || n < 0 || n > 1'000'000) refuse("expected names and numbers like 'plane 3 / leaf 12'");
    parts.push_back({word, static_cast<int>(n)});
    if (in >> slash && slash != "/") refuse("parts are separated by ' / '");
  }
  auto shape = [&](std::initializer_list<const char*> words) {
    if (parts.size() != words.size()) return false;
    std::size_t i = 0;
    for (const char* w : words)
      if (parts[i++].first != w) return false;
    return true;
  };
  auto within = [&](int value, int count, const std::string& word) {
    if (value >= count)
      refuse(count == 0 ? "this fabric has no " + word + "s"
                        : "there are " + std::to_string(count) + " " + word + "s, 0 to " + std::to_string(count - 1));
    return value;
  };
  const char* g = l.planes ? "plane" : "rail";
  FabricComponent c;
  c.kind = kind;
  switch (kind) {
    case FaultKind::kLink:
      if (shape({g, "leaf", "spine"})) {
        c.spine = within(parts[2].second, l.spines, "spine");
      } else if (shape({g, "leaf", "port"})) {
        c.leaf_port = within(parts[2].second, l.spines > 0 ? 2 * l.half : l.half, "leaf port");
        if (c.leaf_port >= l.half) {
          c.spine = c.leaf_port - l.half;
        } else if (parts[1].second * l.half + c.leaf_port >= l.nodes) {
          refuse("no node's NIC is on that port");
        }
      } else {
        refuse("not a link's name");
      }
      c.plane = within(parts[0].second, l.groups, l.group);
      c.leaf = within(parts[1].second, l.leaves, "leaf");
      return c;
    case FaultKind::kNic:
      if (!shape({"node", "nic"}) && !(l.nic_ports > 1 && shape({"node", "nic", "port"}))) refuse("not a NIC's name");
      c.node = within(parts[0].second, l.nodes, "node");
      c.local = within(parts[1].second, l.gpus_per_node, "nic");
      if (parts.size() == 3) c.port = within(parts[2].second, l.nic_ports, "port");
      return c;
    case FaultKind::kSwitch:
      if (shape({g, "leaf"})) {
        c.plane = within(parts[0].second, l.groups, l.group);
        c.leaf = within(parts[1].second, l.leaves, "leaf");
      } else if (l.planes && shape({g, "spine"})) {
        c.plane = within(parts[0].second, l.groups, l.group);
        c.spine = within(parts[1].second, l.spines, "spine");
      } else if (!l.planes && shape({"spine"})) {
        c.spine = within(parts[0].second, l.spines, "spine");
      } else {
        refuse("not a switch's name");
      }
      return c;
    case FaultKind::kPlane:
      if (!shape({g})) refuse(std::string("not a ") + g + "'s name");
      c.plane = within(parts[0].second, l.groups, l.group);
      return c;
    case FaultKind::kGpu:
      if (!shape({"node", "gpu"})) refuse("not a GPU's name");
      c.node = within(parts[0].second, l.nodes, "node");
      c.local = within(parts[1].second, l.gpus_per_node, "gpu");
      return c;
    case FaultKind::kNode:
      if (!shape({"node"})) refuse("not a node's name");
      c.node = within(parts[0].second, l.nodes, "node");
      return c;
  }
  return c;
}

std::vector<std::string> fabric_component_names(const FabricSpec& spec) {
  const Layout l = layout_of(spec);
  std::vector<std::string> out;
  auto add = [&](const char* kind, const std::string& name) { out.push_back(std::string(kind) + ": " + name); };
  const std::string g = l.group + " ";
  for (int p = 0; p < l.groups; ++p)
    for (int leaf = 0; leaf < l.leaves; ++leaf) {
      for (int s = 0; s < l.spines; ++s)
        add("link", g + std::to_string(p) + " / leaf " + std::to_string(leaf) + " / spine " + std::to_string(s));
      for (int k = 0; k < l.half && leaf * l.half + k < l.nodes; ++k)
        add("link", g + std::to_string(p) + " / leaf " + std::to_string(leaf) + " / port " + std::to_string(k));
    }
  for (int n = 0; n < l.nodes; ++n)
    for (int i = 0; i < l.gpus_per_node; ++i) {
      add("nic", "node " + std::to_string(n) + " / nic " + std::to_string(i));
      for (int j = 0; l.nic_ports > 1 && j < l.nic_ports; ++j)
        add("nic", "node " + std::to_string(n) + " / nic " + std::to_string(i) + " / port " + std::to_string(j));
    }
  for (int p = 0; p < l.groups; ++p) {
    for (int leaf = 0; leaf < l.leaves; ++leaf)
      add("switch", g + std::to_string(p) + " / leaf " + std::to_string(leaf));
    for (int s = 0; l.planes && s < l.spines; ++s)
      add("switch", g + std::to_string(p) + " / spine " + std::to_string(s));
  }
  for (int s = 0; !l.planes && s < l.spines; ++s) add("switch", "spine " + std::to_string(s));
  for (int p = 0; p < l.groups; ++p) add("plane", g + std::to_string(p));
  for (int n = 0; n < l.nodes; ++n)
    for (int i = 0; i < l.gpus_per_node; ++i) add("gpu", "node " + std::to_string(n) + " / gpu " + std::to_string(i));
  for (int n = 0; n < l.nodes; ++n) add("node", "node " + std::to_string(n));
  return out;
}

}  // namespace net
