#include "PythonEvent.h"

#include <unordered_map>

#include <ROOT/RVec.hxx>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "EmbeddedPython.h"
#include "lanes/core/Exception.h"

namespace py = pybind11;

namespace lanes::python {

namespace {

// What every array over a product's memory names as its owner (an array
// needs one not to copy): a capsule that lives as long as the interpreter,
// never destroyed (EmbeddedPython.h).
py::handle productMemory() {
  static auto const* capsule = new py::capsule(reinterpret_cast<void*>(&productMemory), "lanes product memory");
  return *capsule;
}

// A read-only array of `size` values of T at `data` (0-d for `size` < 0), naming productMemory() as its owner: made
// by numpy's own constructor, with the type's descriptor made once, for this is done for every product of every
// event (pybind11's py::array costs about a microsecond more).
template <typename T>
py::object view(void const* data, py::ssize_t size) {
  static PyObject* const descriptor = py::dtype::of<T>().release().ptr();  // kept for the interpreter's life
  auto& api = py::detail::npy_api::get();
  static T const none{};  // where an empty vector's values are, for numpy: given no data, it would allocate
  Py_INCREF(descriptor);  // the constructor takes a reference
  Py_intptr_t dimensions[1] = {size};
  auto array = py::reinterpret_steal<py::object>(api.PyArray_NewFromDescr_(
      api.PyArray_Type_, descriptor, size < 0 ? 0 : 1, dimensions, nullptr, const_cast<void*>(data ? data : &none),
      py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ | py::detail::npy_api::NPY_ARRAY_ALIGNED_, nullptr));
  if (!array || api.PyArray_SetBaseObject_(array.ptr(), productMemory().inc_ref().ptr()) != 0) {
    throw py::error_already_set();
  }
  return array;
}

py::object readOnly(py::array array) {
  py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return std::move(array);
}

template <typename T>
py::object number(void const* object) {
  return view<T>(object, -1);
}

template <typename Vector>
py::object numbers(void const* object) {
  auto const& values = *static_cast<Vector const*>(object);
  return view<typename Vector::value_type>(values.data(), static_cast<py::ssize_t>(values.size()));
}

py::object packedBools(void const* object) {
  auto const& values = *static_cast<std::vector<bool> const*>(object);
  py::array_t<bool> array(static_cast<py::ssize_t>(values.size()));
  auto* out = array.mutable_data();
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return readOnly(std::move(array));
}

py::object string(void const* object) { return py::str(*static_cast<std::string const*>(object)); }

py::object strings(void const* object) { return py::cast(*static_cast<std::vector<std::string> const*>(object)); }

template <typename T>
void addNumbers(std::unordered_map<std::type_index, Converter>& table) {
  table.emplace(typeid(T), Converter{&number<T>, true});
  table.emplace(typeid(std::vector<T>), Converter{&numbers<std::vector<T>>, true});
  table.emplace(typeid(ROOT::RVec<T>), Converter{&numbers<ROOT::RVec<T>>, true});
}

std::unordered_map<std::type_index, Converter> const& converters() {
  static auto const table = [] {
    std::unordered_map<std::type_index, Converter> table;
    addNumbers<float>(table);
    addNumbers<double>(table);
    addNumbers<std::int8_t>(table);
    addNumbers<std::uint8_t>(table);
    addNumbers<std::int16_t>(table);
    addNumbers<std::uint16_t>(table);
    addNumbers<std::int32_t>(table);
    addNumbers<std::uint32_t>(table);
    addNumbers<std::int64_t>(table);
    addNumbers<std::uint64_t>(table);
    addNumbers<long long>(table);  // ROOT's Long64_t: not std::int64_t's long
    addNumbers<unsigned long long>(table);
    table.emplace(typeid(bool), Converter{&number<bool>, true});
    table.emplace(typeid(ROOT::RVec<bool>), Converter{&numbers<ROOT::RVec<bool>>, true});
    table.emplace(typeid(std::vector<bool>), Converter{&packedBools, false});  // its bits are packed
    table.emplace(typeid(std::string), Converter{&string, false});
    table.emplace(typeid(std::vector<std::string>), Converter{&strings, false});
    return table;
  }();
  return table;
}

}  // namespace

Converter converterFor(std::type_index type) {
  auto const found = converters().find(type);
  return found == converters().end() ? Converter{} : found->second;
}

EventBinding::~EventBinding() {
  if (!eventType_) return;
  Gil gil;
  products_.clear();
  views_.clear();
  eventType_ = productType_ = idName_ = laneName_ = py::object();
}

void EventBinding::setProducts(std::vector<ConsumedProduct> products) {
  products_ = std::move(products);
  auto const embedded = py::module_::import("lanes._embedded");
  eventType_ = embedded.attr("Event");
  productType_ = embedded.attr("Product");
  idName_ = py::reinterpret_steal<py::object>(PyUnicode_InternFromString("id"));
  laneName_ = py::reinterpret_steal<py::object>(PyUnicode_InternFromString("lane"));
}

py::object EventBinding::convert(ConsumedProduct const& product, ProductSlot const& slot) {
  if (!product.converter.convert) return productType_(product.typeName, slot.bytes());
  auto value = product.converter.convert(slot.object());
  if (product.converter.view) views_.emplace_back(product.label, value);
  return value;
}

py::object EventBinding::bind(Event const& event) {
  auto* type = reinterpret_cast<PyTypeObject*>(eventType_.ptr());
  auto object = py::reinterpret_steal<py::object>(type->tp_new(type, py::tuple().ptr(), nullptr));
  if (!object) throw py::error_already_set();
  for (auto const& product : products_) {
    auto const& slot = event.slot(product.index);
    if (!slot.filled()) throw Exception("product '" + product.label + "' is missing from this event");
    if (PyDict_SetItem(object.ptr(), product.key.ptr(), convert(product, slot).ptr()) != 0) throw py::error_already_set();
  }
  auto const& id = event.id();
  auto const ids = py::reinterpret_steal<py::object>(
      Py_BuildValue("(IIK)", id.run, id.luminosityBlock, static_cast<unsigned long long>(id.event)));
  auto const lane = py::reinterpret_steal<py::object>(PyLong_FromUnsignedLong(event.lane()));
  if (!ids || !lane || PyObject_SetAttr(object.ptr(), idName_.ptr(), ids.ptr()) != 0 ||
      PyObject_SetAttr(object.ptr(), laneName_.ptr(), lane.ptr()) != 0) {
    throw py::error_already_set();
  }
  return object;
}

std::vector<std::string> EventBinding::release(py::object const& event) {
  if (event) PyDict_Clear(event.ptr());
  std::vector<std::string> kept;
  for (auto const& [label, array] : views_) {
    if (Py_REFCNT(array.ptr()) > 1) kept.push_back(label);
  }
  views_.clear();
  return kept;
}

}  // namespace lanes::python
