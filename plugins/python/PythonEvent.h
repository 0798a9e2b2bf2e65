#pragma once
// What a Python analyzer's function gets as `event`: a dict of the products
// it consumes, by label, and the event's id (lanes._embedded.Event).
//
//   numbers, std::vector / ROOT::RVec of numbers  -> read-only numpy arrays over the product's own memory
//                                                   (0-d for a number): no copy
//   std::vector<bool>                             -> a numpy bool array (a copy: its bits are packed)
//   std::string, std::vector<std::string>         -> str, list of str
//   anything else                                 -> lanes._embedded.Product(type, bytes)
//
// An array views the product only while the call lasts: after it, the
// event is emptied and the analyzer must hold none of its arrays
// (PythonAnalyzer checks).
//
// Lane-confined, and used with the interpreter's lock held: a Python
// analyzer is a `one` module, each call one event.

#include <cstdint>
#include <string>
#include <typeindex>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>

#include "lanes/core/Event.h"

namespace lanes::python {

// Converts a product of one type, at `object`, to a Python object; `view`:
// the object views the product's memory (no copy). No converter: the type
// is not one of those above.
struct Converter {
  pybind11::object (*convert)(void const* object) = nullptr;
  bool view = false;
};

Converter converterFor(std::type_index type);

// One product an analyzer consumes, as the job begins: its label (also as a
// Python string), its index and type in the registry, and its converter.
struct ConsumedProduct {
  std::string label;
  pybind11::object key;
  ProductIndex index;
  std::string typeName;
  Converter converter;
};

// Binds a lanes event to the `event` dict a call gets. One per analyzer.
class EventBinding {
 public:
  EventBinding() = default;
  EventBinding(EventBinding const&) = delete;
  EventBinding& operator=(EventBinding const&) = delete;
  ~EventBinding();  // lets go of its Python objects with the interpreter's lock

  // As the job begins, with the interpreter's lock held.
  void setProducts(std::vector<ConsumedProduct> products);

  // A new `event` holding every consumed product of `event`. Throws
  // lanes::Exception for a product the event lacks.
  pybind11::object bind(Event const& event);
  // Ends the call: empties `event`, and returns the labels of the products
  // whose arrays (views) the analyzer still holds.
  std::vector<std::string> release(pybind11::object const& event);

 private:
  pybind11::object convert(ConsumedProduct const& product, ProductSlot const& slot);

  std::vector<ConsumedProduct> products_;
  pybind11::object eventType_;    // lanes._embedded.Event
  pybind11::object productType_;  // lanes._embedded.Product
  pybind11::object idName_, laneName_;  // its attributes' names, interned
  std::vector<std::pair<std::string, pybind11::object>> views_;  // the arrays lent in this call
};

}  // namespace lanes::python
