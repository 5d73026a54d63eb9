import { RecordNotFound } from "@/components/ui/RecordNotFound";

export default function PolicyNotFound() {
  return <RecordNotFound kind="policy" />;
}
