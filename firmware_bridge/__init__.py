"""The microcontroller link: frame protocol, host driver, firmware and simulator."""
