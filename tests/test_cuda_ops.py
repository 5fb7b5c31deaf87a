"""The C++/CUDA registration scanner behind cuda_op_list.csv: formatting must not matter."""
from __future__ import annotations

from npu_lint.run.migrate.cuda_ops import scan_source, unique_ops


def _apis(text: str) -> list[str]:
    return [op.api for op in scan_source(text, "x.cpp")]


def test_pybind_registrations_whatever_the_layout():
    text = """
PYBIND11_MODULE(TORCH_EXTENSION_NAME, mod) {
  mod . def ( "fused_adam",
      &fused_adam_cuda ) ;
  mod.def("lambda_with_body", [](int x) { int y = x; return y; }, "a lambda; with a semicolon");
  /* mod.def("in_a_comment", &f); */
  // mod.def("in_a_line_comment", &f);
  mod.def("multi_" "literal", &g);
  py::class_<Sampler>(mod, "Sampler").def(py::init<>()).def("sample", &Sampler::sample);
}
"""
    assert _apis(text) == ["fused_adam", "lambda_with_body", "multi_literal", "Sampler", "Sampler.sample"]


def test_torch_library_names_carry_the_namespace():
    text = """
TORCH_LIBRARY_FRAGMENT(vision, m) {
  m.def(TORCH_SELECTIVE_SCHEMA("vision::roi_align(Tensor input, Tensor rois) -> Tensor"));
  m.def("ps_roi_pool.out(Tensor input) -> Tensor");
  m.class_<Tracker>("Tracker").def("step", &Tracker::step);
}
TORCH_LIBRARY_IMPL(vision, CUDA, m) {
  m.impl(TORCH_SELECTIVE_NAME("vision::roi_align"), TORCH_FN(roi_align_cuda));
}
"""
    ops = scan_source(text, "ops.cu")
    assert [op.api for op in ops] == [
        "vision.roi_align", "vision.ps_roi_pool", "vision.Tracker", "vision.Tracker.step", "vision.roi_align"]
    assert ops[-1].dispatch_key == "CUDA" and ops[-1].registration == "TORCH_LIBRARY impl"
    assert [op.api for op in unique_ops(ops)] == ["vision.roi_align", "vision.ps_roi_pool", "vision.Tracker",
                                                  "vision.Tracker.step"]


def test_no_registration_block_no_operator():
    assert _apis('void f() { m.def("not_in_a_module", &f); }\n// PYBIND11_MODULE(x, m) {}\n') == []
    assert _apis("PYBIND11_MODULE(broken, m) {\n  m.def(\n") == []
